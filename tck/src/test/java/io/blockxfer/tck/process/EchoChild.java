package io.blockxfer.tck.process;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/** A child program for {@link ChildJvmTest}: answers each line, writes stderr on request, exits on request or EOF. */
public final class EchoChild {

    private EchoChild() {
    }

    public static void main(String[] args) throws Exception {
        ChildJvm.exitWhenParentDies();
        System.out.println("READY " + String.join(",", args) + " " + System.getProperty("echo.flag", "-"));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.startsWith("EXIT ")) {
                System.exit(Integer.parseInt(line.substring(5)));
            } else if (line.startsWith("ERR ")) {
                System.err.println(line.substring(4));
                System.out.println("OK");
            } else {
                System.out.println("ECHO " + line);
            }
        }
    }
}
