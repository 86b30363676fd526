package io.blockxfer.directory.etcd.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * etcdctl's settings as its {@code ETCDCTL_*} variables give them (those unset are null), checked
 * as etcdctl checks them; and a password file read as etcdctl's {@code --password} would take it.
 *
 * <p><b>Thread safety:</b> immutable (the password is handed out as a copy).
 */
public final class EtcdctlVariables {

    private final @Nullable Path caFile;
    private final @Nullable Path certFile;
    private final @Nullable Path keyFile;
    private final @Nullable String user;
    private final char @Nullable [] password;
    private final @Nullable Boolean insecureSkipTlsVerify;

    private EtcdctlVariables(@Nullable Path caFile, @Nullable Path certFile, @Nullable Path keyFile,
            @Nullable String user, char @Nullable [] password, @Nullable Boolean insecureSkipTlsVerify) {
        this.caFile = caFile;
        this.certFile = certFile;
        this.keyFile = keyFile;
        this.user = user;
        this.password = password;
        this.insecureSkipTlsVerify = insecureSkipTlsVerify;
    }

    /** {@code ETCDCTL_CACERT}, or null. */
    public @Nullable Path caFile() {
        return caFile;
    }

    /** {@code ETCDCTL_CERT} (set together with the key), or null. */
    public @Nullable Path certFile() {
        return certFile;
    }

    /** {@code ETCDCTL_KEY}, or null. */
    public @Nullable Path keyFile() {
        return keyFile;
    }

    /** The user of {@code ETCDCTL_USER}, or null. */
    public @Nullable String user() {
        return user;
    }

    /** Its password ({@code ETCDCTL_USER=name:password}, or {@code ETCDCTL_PASSWORD}), a copy; or null. */
    public char @Nullable [] password() {
        char[] p = password;
        return p == null ? null : p.clone();
    }

    /** {@code ETCDCTL_INSECURE_SKIP_TLS_VERIFY}, or null. */
    public @Nullable Boolean insecureSkipTlsVerify() {
        return insecureSkipTlsVerify;
    }

    /**
     * The variables set in {@code environment}.
     *
     * @throws IllegalArgumentException naming the variable that is malformed or lacks its pair
     */
    public static EtcdctlVariables read(Map<String, String> environment) {
        String ca = nonBlank(environment, "ETCDCTL_CACERT");
        String cert = nonBlank(environment, "ETCDCTL_CERT");
        String key = nonBlank(environment, "ETCDCTL_KEY");
        String userVariable = nonBlank(environment, "ETCDCTL_USER");
        String passwordVariable = environment.get("ETCDCTL_PASSWORD");
        String insecure = nonBlank(environment, "ETCDCTL_INSECURE_SKIP_TLS_VERIFY");
        if ((cert == null) != (key == null)) {
            throw new IllegalArgumentException(cert == null ? "ETCDCTL_KEY is set without ETCDCTL_CERT"
                    : "ETCDCTL_CERT is set without ETCDCTL_KEY");
        }
        String user = null;
        char[] password = null;
        if (userVariable != null) {
            int colon = userVariable.indexOf(':');
            if (colon >= 0) {
                user = userVariable.substring(0, colon);
                password = userVariable.substring(colon + 1).toCharArray();
            } else {
                if (passwordVariable == null) {
                    throw new IllegalArgumentException("ETCDCTL_USER names user '" + userVariable
                            + "' without a password: set ETCDCTL_USER=name:password, or ETCDCTL_PASSWORD");
                }
                user = userVariable;
                password = passwordVariable.toCharArray();
            }
        } else if (passwordVariable != null) {
            throw new IllegalArgumentException("ETCDCTL_PASSWORD is set without ETCDCTL_USER");
        }
        Boolean skip = insecure == null ? null : switch (insecure) {
            case "1", "t", "T", "true", "TRUE", "True" -> true;
            case "0", "f", "F", "false", "FALSE", "False" -> false;
            default -> throw new IllegalArgumentException("ETCDCTL_INSECURE_SKIP_TLS_VERIFY must be true or false, not '"
                    + insecure + "'");
        };
        return new EtcdctlVariables(ca == null ? null : Path.of(ca), cert == null ? null : Path.of(cert),
                key == null ? null : Path.of(key), user, password, skip);
    }

    private static @Nullable String nonBlank(Map<String, String> environment, String variable) {
        String value = environment.get(variable);
        return value == null || value.isBlank() ? null : value.strip();
    }

    /**
     * The password in {@code file} as UTF-8 bytes: its first line, without the line end.
     *
     * @throws IllegalArgumentException naming the file when it cannot be read or its first line is empty
     */
    public static byte[] passwordFile(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException("the etcd password file " + file + " cannot be read: " + e, e);
        }
        int end = text.indexOf('\n');
        String line = end < 0 ? text : text.substring(0, end);
        if (line.endsWith("\r")) {
            line = line.substring(0, line.length() - 1);
        }
        if (line.isEmpty()) {
            throw new IllegalArgumentException("the etcd password file " + file + " is empty (its first line is the"
                    + " password)");
        }
        return line.getBytes(StandardCharsets.UTF_8);
    }
}
