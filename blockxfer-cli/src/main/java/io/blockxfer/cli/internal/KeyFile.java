package io.blockxfer.cli.internal;

import io.blockxfer.transport.DeploymentKeyRing;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A deployment key file ({@code --key-file FILE}, or the file named by {@value #ENVIRONMENT}), read
 * and checked: the {@link DeploymentKeyRing} that signs and verifies peer descriptors, and the keys
 * the bench control channel derives its own MAC keys from.
 *
 * <p>Format: UTF-8 text, one key per line as {@code KEY_ID=BASE64}; blank lines and lines starting
 * with {@code #} are ignored. The first key signs; further keys are accepted only (for rotation).
 * A key id is 1 to {@value DeploymentKeyRing#MAX_KEY_ID_LENGTH} characters of
 * {@code [A-Za-z0-9._-]}; a key is standard base64 of at least
 * {@value DeploymentKeyRing#MIN_KEY_BYTES} random bytes. Like ssh, the file is refused when its
 * permissions let the group or others do anything with it (on file systems with POSIX
 * permissions). Messages name the file, the line and the key id, never key material.
 *
 * <p><b>Thread safety:</b> immutable.
 */
public final class KeyFile {

    /** The environment variable that names a key file when {@code --key-file} is not given. */
    public static final String ENVIRONMENT = "BLOCKXFER_KEY_FILE";

    private static final long MAX_FILE_BYTES = 64 * 1024;
    private static final Set<PosixFilePermission> PRIVATE = EnumSet.of(PosixFilePermission.OWNER_READ,
            PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);

    private final String origin;
    private final DeploymentKeyRing ring;
    private final Map<String, byte[]> keys;

    private KeyFile(String origin, DeploymentKeyRing ring, Map<String, byte[]> keys) {
        this.origin = origin;
        this.ring = ring;
        this.keys = keys;
    }

    /**
     * The key file to use: {@code option} when given, else the non-blank value of
     * {@value #ENVIRONMENT} in {@code environment}.
     */
    public static Optional<Path> locate(@Nullable Path option, Map<String, String> environment) {
        if (option != null) {
            return Optional.of(option);
        }
        String named = environment.get(ENVIRONMENT);
        return named == null || named.isBlank() ? Optional.empty() : Optional.of(Path.of(named.strip()));
    }

    /**
     * Reads and checks {@code path}.
     *
     * @param fromEnvironment whether the path came from {@value #ENVIRONMENT}, for messages
     * @throws CliException (exit status 1) naming what is wrong: a missing or unreadable file,
     *     permissions that are too open, a malformed line, a key id given twice, a short key, no key
     */
    public static KeyFile load(Path path, boolean fromEnvironment) {
        String origin = "key file " + path + (fromEnvironment ? " (from " + ENVIRONMENT + ")" : "");
        List<String> lines = read(path, origin);
        DeploymentKeyRing ring = null;
        Map<String, byte[]> keys = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String where = origin + ", line " + (i + 1);
            int eq = line.indexOf('=');
            if (eq <= 0) {
                throw new CliException(where + ": expected KEY_ID=BASE64_KEY");
            }
            String id = line.substring(0, eq).strip();
            byte[] key;
            try {
                key = Base64.getDecoder().decode(line.substring(eq + 1).strip());
            } catch (IllegalArgumentException e) {
                throw new CliException(where + ": the key of '" + id + "' is not base64");
            }
            if (key.length < DeploymentKeyRing.MIN_KEY_BYTES) {
                throw new CliException(where + ": key '" + id + "' has " + key.length + " bytes; at least "
                        + DeploymentKeyRing.MIN_KEY_BYTES + " random bytes are needed (make one with: head -c 32"
                        + " /dev/urandom | base64)");
            }
            try {
                ring = ring == null ? DeploymentKeyRing.of(id, key) : ring.withVerificationKey(id, key);
            } catch (IllegalArgumentException e) {
                throw new CliException(where + ": " + e.getMessage());
            }
            keys.put(id, key);
        }
        if (ring == null) {
            throw new CliException(origin + " holds no key (expected lines KEY_ID=BASE64_KEY, the signing key"
                    + " first)");
        }
        return new KeyFile(origin, ring, keys);
    }

    private static List<String> read(Path path, String origin) {
        try {
            if (!Files.isRegularFile(path)) {
                throw new CliException(origin + (Files.exists(path) ? " is not a regular file" : " does not exist"));
            }
            checkPrivate(path, origin);
            if (Files.size(path) > MAX_FILE_BYTES) {
                throw new CliException(origin + " is over " + MAX_FILE_BYTES / 1024 + " KiB: not a key file");
            }
            String text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(Files.readAllBytes(path)))
                    .toString();
            return List.of(text.split("\\R", -1));
        } catch (NoSuchFileException e) {
            throw new CliException(origin + " does not exist");
        } catch (CharacterCodingException e) {
            throw new CliException(origin + " is not UTF-8 text");
        } catch (IOException e) {
            throw new CliException("could not read " + origin + ": " + e.getMessage());
        }
    }

    /** Refuses a file the group or others may read, write or run, as ssh does with private keys. */
    private static void checkPrivate(Path path, String origin) throws IOException {
        Set<PosixFilePermission> permissions;
        try {
            permissions = Files.getPosixFilePermissions(path);
        } catch (UnsupportedOperationException e) {
            return; // no POSIX permissions on this file system: nothing to check
        }
        if (!PRIVATE.containsAll(permissions)) {
            throw new CliException(origin + " is accessible by group or others (" + PosixFilePermissions.toString(
                    permissions) + "); a key file must be private to its owner: chmod 600 " + path);
        }
    }

    /** The key ring: the first key signs, the others are accepted. */
    public DeploymentKeyRing ring() {
        return ring;
    }

    /** The id of the signing key. */
    public String signingKeyId() {
        return ring.signingKeyId();
    }

    /** Where the keys came from, for messages: {@code key file PATH}. */
    public String origin() {
        return origin;
    }

    /**
     * One key per id, in the file's order (the signing key first), derived for {@code purpose} as
     * HMAC-SHA-256(key, purpose), so that a protocol keyed with them never shares a key with the
     * descriptor signatures or with another purpose. A fresh map of fresh arrays.
     */
    public Map<String, byte[]> derivedKeys(String purpose) {
        Map<String, byte[]> derived = new LinkedHashMap<>();
        keys.forEach((id, key) -> derived.put(id, HmacSha256.of(key, purpose.getBytes(StandardCharsets.UTF_8))));
        return derived;
    }

    /** The origin and key ids, never key material. */
    @Override
    public String toString() {
        return origin + ": signing key '" + signingKeyId() + "', accepting " + ring.keyIds();
    }
}
