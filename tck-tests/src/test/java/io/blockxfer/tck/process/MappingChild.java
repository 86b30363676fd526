package io.blockxfer.tck.process;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.ref.Reference;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A child program for {@link UcxShmFilesTest}: maps the file its argument names, as UCX maps a
 * segment, says {@code READY} and holds the mapping until its stdin closes.
 */
public final class MappingChild {

    private MappingChild() {
    }

    public static void main(String[] args) throws Exception {
        ChildJvm.exitWhenParentDies();
        Path file = Path.of(args[0]);
        MappedByteBuffer mapped;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            mapped = ch.map(FileChannel.MapMode.READ_WRITE, 0, ch.size());
        }
        try {
            mapped.put(0, (byte) 1);
            System.out.println("READY");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            while (in.readLine() != null) {
                // hold the mapping until the parent lets go
            }
        } finally {
            Reference.reachabilityFence(mapped);
        }
    }
}
