package io.blockxfer.cli.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;

/** Key files for tests: random keys, written with the permissions a test asks for. */
public final class KeyFiles {

    private static final SecureRandom RANDOM = new SecureRandom();

    private KeyFiles() {
    }

    /** {@code n} random bytes. */
    public static byte[] random(int n) {
        byte[] b = new byte[n];
        RANDOM.nextBytes(b);
        return b;
    }

    /** The line {@code id=base64(key)}. */
    public static String line(String id, byte[] key) {
        return id + "=" + Base64.getEncoder().encodeToString(key);
    }

    /** Writes {@code lines} to {@code dir/name} with {@code permissions} (e.g. {@code rw-------}). */
    public static Path write(Path dir, String name, String permissions, String... lines) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(permissions));
        return p;
    }

    /** A private key file holding one fresh 32-byte key under {@code id}. */
    public static Path fresh(Path dir, String name, String id) throws IOException {
        return write(dir, name, "rw-------", line(id, random(32)));
    }

    /** The key file at {@code p}, loaded. */
    public static KeyFile load(Path p) {
        return KeyFile.load(p, false);
    }
}
