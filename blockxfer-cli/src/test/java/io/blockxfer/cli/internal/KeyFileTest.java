package io.blockxfer.cli.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.UnauthenticatedPeerException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The key file: its format, the ssh-like permission check, short keys, and where it is found. */
class KeyFileTest {

    @TempDir
    Path dir;

    private final byte[] current = KeyFiles.random(32);
    private final byte[] previous = KeyFiles.random(48);

    @Test
    void theFirstKeySignsAndFurtherKeysAreAcceptedForRotation() throws IOException {
        Path p = KeyFiles.write(dir, "bench.key", "rw-------", "# the deployment's keys", "",
                KeyFiles.line("2026-05", current), "  " + KeyFiles.line("2026-02", previous) + "  ");
        KeyFile keys = KeyFiles.load(p);
        assertEquals("2026-05", keys.signingKeyId());
        assertEquals(List.of("2026-05", "2026-02"), List.copyOf(keys.ring().keyIds()));

        PeerDescriptor d = sample();
        PeerDescriptor signedWithOld = d.signedWith(DeploymentKeyRing.of("2026-02", previous));
        keys.ring().verify(signedWithOld); // a verification key is accepted
        PeerDescriptor signedWithStranger = d.signedWith(DeploymentKeyRing.of("2026-02", KeyFiles.random(32)));
        assertThrows(UnauthenticatedPeerException.class, () -> keys.ring().verify(signedWithStranger));
        assertEquals("2026-05", d.signedWith(keys.ring()).keyId().orElseThrow());
    }

    @Test
    void aFileTheGroupOrOthersCanAccessIsRefusedLikeSshDoes() throws IOException {
        for (String mode : List.of("rw-r--r--", "rw-r-----", "rw----r--", "rw--w----")) {
            Path p = KeyFiles.write(dir, "open-" + mode + ".key", mode, KeyFiles.line("k1", current));
            CliException e = assertThrows(CliException.class, () -> KeyFiles.load(p), mode);
            assertEquals("key file " + p + " is accessible by group or others (" + mode + "); a key file must be"
                    + " private to its owner: chmod 600 " + p, e.getMessage());
            assertEquals(CliException.FAILURE, e.exitCode());
        }
        Path owner = KeyFiles.write(dir, "owner.key", "r--------", KeyFiles.line("k1", current));
        assertEquals("k1", KeyFiles.load(owner).signingKeyId(), "read-only for its owner is fine");
    }

    @Test
    void aKeyShorterThan32BytesIsRefused() throws IOException {
        Path p = KeyFiles.write(dir, "short.key", "rw-------", "# one line", KeyFiles.line("k1", KeyFiles.random(31)));
        CliException e = assertThrows(CliException.class, () -> KeyFiles.load(p));
        assertTrue(e.getMessage().startsWith("key file " + p + ", line 2: key 'k1' has 31 bytes; at least 32 random"
                + " bytes are needed"), e::getMessage);
    }

    @Test
    void malformedFilesAreRefusedWithTheLineAndNeverTheKey() throws IOException {
        String b64 = Base64.getEncoder().encodeToString(current);
        Map<String, String> cases = Map.of(
                "no-equals.key", "line 1: expected KEY_ID=BASE64_KEY",
                "not-base64.key", "line 1: the key of 'k1' is not base64",
                "bad-id.key", "line 1: key id must be 1-64 chars of [A-Za-z0-9._-]: 'k 1'",
                "twice.key", "line 2: key id 'k1' is already in the key ring",
                "empty.key", "holds no key");
        Map<String, List<String>> contents = Map.of(
                "no-equals.key", List.of("just a key without its id"),
                "not-base64.key", List.of("k1=not*base64"),
                "bad-id.key", List.of("k 1=" + b64),
                "twice.key", List.of("k1=" + b64, KeyFiles.line("k1", previous)),
                "empty.key", List.of("# nothing here", ""));
        for (Map.Entry<String, String> c : cases.entrySet()) {
            Path p = KeyFiles.write(dir, c.getKey(), "rw-------", contents.get(c.getKey()).toArray(String[]::new));
            CliException e = assertThrows(CliException.class, () -> KeyFiles.load(p), c.getKey());
            assertTrue(e.getMessage().startsWith("key file " + p) && e.getMessage().contains(c.getValue()),
                    () -> c.getKey() + ": " + e.getMessage());
            assertFalse(e.getMessage().contains(b64), () -> "key material in: " + e.getMessage());
        }
        Path missing = dir.resolve("missing.key");
        assertEquals("key file " + missing + " (from BLOCKXFER_KEY_FILE) does not exist",
                assertThrows(CliException.class, () -> KeyFile.load(missing, true)).getMessage());
        Files.createDirectory(dir.resolve("a-directory"));
        assertTrue(assertThrows(CliException.class, () -> KeyFiles.load(dir.resolve("a-directory"))).getMessage()
                .endsWith("is not a regular file"));
    }

    @Test
    void toStringNamesTheKeyIdsButNoKeyMaterial() throws IOException {
        Path p = KeyFiles.write(dir, "bench.key", "rw-------", KeyFiles.line("k1", current));
        String s = KeyFiles.load(p).toString();
        assertEquals("key file " + p + ": signing key 'k1', accepting [k1]", s);
    }

    @Test
    void derivedKeysDependOnThePurposeAndAreNotTheKeys() throws IOException {
        Path p = KeyFiles.write(dir, "bench.key", "rw-------", KeyFiles.line("k1", current),
                KeyFiles.line("k0", previous));
        KeyFile keys = KeyFiles.load(p);
        Map<String, byte[]> a = keys.derivedKeys("purpose a");
        assertEquals(List.of("k1", "k0"), List.copyOf(a.keySet()));
        assertArrayEquals(a.get("k1"), keys.derivedKeys("purpose a").get("k1"), "deterministic");
        assertFalse(Arrays.equals(a.get("k1"), keys.derivedKeys("purpose b").get("k1")));
        assertFalse(Arrays.equals(a.get("k1"), current));
    }

    @Test
    void theOptionWinsOverTheEnvironmentVariable() {
        Path option = Path.of("option.key");
        Map<String, String> env = Map.of(KeyFile.ENVIRONMENT, "env.key");
        assertEquals(Optional.of(option), KeyFile.locate(option, env));
        assertEquals(Optional.of(Path.of("env.key")), KeyFile.locate(null, env));
        assertEquals(Optional.empty(), KeyFile.locate(null, Map.of(KeyFile.ENVIRONMENT, "  ")));
        assertEquals(Optional.empty(), KeyFile.locate(null, Map.of()));
    }

    private static PeerDescriptor sample() {
        return new PeerDescriptor("loopback", "", 4096, 4, 4096, new byte[] {1, 2, 3});
    }
}
