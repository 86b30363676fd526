package io.blockxfer.directory.etcd;

import io.blockxfer.directory.Publication;
import io.blockxfer.tck.process.ChildJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A child JVM that publishes one entry and keeps its lease alive until its stdin closes (then it
 * says goodbye) or it is killed (then the lease expires): {@code ENDPOINTS PREFIX MEMBER_ID
 * TTL_SECONDS}. Prints {@code PUBLISHED <revision>} once the entry is stored.
 */
public final class PublisherMain {

    private PublisherMain() {
    }

    /** Runs the publisher. */
    public static void main(String[] args) throws IOException {
        ChildJvm.exitWhenParentDies();
        try (EtcdDirectory directory = EtcdDirectory.builder(args[0]).prefix(args[1]).name("child")
                .operationTimeout(Duration.ofSeconds(30)).build()) {
            Publication p = directory.publish(args[2], args[2].getBytes(StandardCharsets.UTF_8),
                    Duration.ofSeconds(Long.parseLong(args[3])), (pub, why) -> System.out.println("LOST " + why));
            System.out.println("PUBLISHED " + p.revision());
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            while (in.readLine() != null) {
                // until stdin closes
            }
        }
    }
}
