package io.blockxfer.cli.internal;

import io.blockxfer.cli.internal.remote.BenchDirectory;
import io.blockxfer.cli.internal.remote.ServerConfig;
import io.blockxfer.directory.DirectoryLimits;
import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;

/**
 * The options of {@code bench} with which servers and initiators meet in etcd ({@code --directory},
 * {@code --etcd-*}, {@code --prefix}, {@code --target}, {@code --advertise}), a picocli mixin of
 * {@code BenchCommand}: their checks against {@code --serve} and {@code --connect}, and the
 * directory they name.
 *
 * <p><b>Thread safety:</b> not thread-safe; one instance per invocation.
 */
public final class BenchDirectoryOptions {

    @Option(names = "--directory", paramLabel = "ENDPOINTS", arity = "0..1", fallbackValue = "",
            description = "The etcd cluster where servers and initiators meet (etcd://HOST:PORT[,HOST:PORT...],"
                    + " http://... or https://HOST:PORT[,https://HOST:PORT...] for TLS; without a value:"
                    + " $ETCDCTL_ENDPOINTS). With --serve: publish this server there while it serves; with --connect:"
                    + " find the server there. etcdctl's variables (ETCDCTL_CACERT, ETCDCTL_CERT, ETCDCTL_KEY,"
                    + " ETCDCTL_USER, ETCDCTL_PASSWORD, ETCDCTL_INSECURE_SKIP_TLS_VERIFY) are read; the --etcd-*"
                    + " options override them.")
    private @Nullable String directory;

    @Option(names = "--etcd-cacert", paramLabel = "FILE",
            description = "With --directory: the CA bundle (PEM) etcd's certificate must be signed by; turns TLS on"
                    + " (etcdctl's --cacert).")
    private @Nullable Path etcdCacert;

    @Option(names = "--etcd-cert", paramLabel = "FILE",
            description = "With --directory: this client's certificate (PEM), for etcd's --client-cert-auth; with"
                    + " --etcd-key (etcdctl's --cert).")
    private @Nullable Path etcdCert;

    @Option(names = "--etcd-key", paramLabel = "FILE",
            description = "With --directory: the key of --etcd-cert (PEM: PKCS#1, PKCS#8 or SEC1; etcdctl's --key).")
    private @Nullable Path etcdKey;

    @Option(names = "--etcd-user", paramLabel = "NAME[:PASSWORD]",
            description = "With --directory: the etcd user (etcdctl's --user); its password after a colon, or in"
                    + " --etcd-password-file.")
    private @Nullable String etcdUser;

    @Option(names = "--etcd-password-file", paramLabel = "FILE",
            description = "With --directory: a file whose first line is the password of --etcd-user.")
    private @Nullable Path etcdPasswordFile;

    @Option(names = "--etcd-insecure-skip-tls-verify",
            description = "With --directory: do not check etcd's certificate (for tests only; says so loudly)"
                    + " (etcdctl's --insecure-skip-tls-verify).")
    private boolean etcdInsecure;

    @Option(names = "--prefix", paramLabel = "PREFIX",
            description = "With --directory: the deployment's key prefix. Default: " + BenchDirectory.DEFAULT_PREFIX
                    + ".")
    private @Nullable String prefix;

    @Option(names = "--target", paramLabel = "NAME",
            description = "With --directory: the name this server is published under (--serve; default: this host's"
                    + " name), or the server to measure against (--connect: only its entry is read; default: the only one"
                    + " published).")
    private @Nullable String target;

    @Option(names = "--advertise", paramLabel = "HOST[:PORT]",
            description = "With --serve --directory: the control address to publish. Default: the --listen address;"
                    + " for a wildcard one, this host's address towards etcd; the port listened on.")
    private @Nullable String advertise;

    /** For picocli. */
    public BenchDirectoryOptions() {
    }

    /**
     * The options of {@code --directory} go with it, and it with {@code --serve} or {@code --connect}
     * alone.
     *
     * @param connect {@code --connect}'s value ("" without one), or null without it
     * @throws CliException naming the option that is misused
     */
    public void check(ParseResult parsed, boolean serve, @Nullable String connect) {
        if (directory == null) {
            for (String option : List.of("--prefix", "--target", "--advertise", "--etcd-cacert", "--etcd-cert",
                    "--etcd-key", "--etcd-user", "--etcd-password-file", "--etcd-insecure-skip-tls-verify")) {
                if (parsed.hasMatchedOption(option)) {
                    throw CliException.usage(option + " goes with --directory");
                }
            }
            if (connect != null && connect.isBlank()) {
                throw CliException.usage("--connect needs HOST[:PORT], or --directory ENDPOINTS to find the server in");
            }
            return;
        }
        if (!serve && connect == null) {
            throw CliException.usage("--directory goes with --serve (publish this server there) or --connect (find a"
                    + " server there)");
        }
        if (connect != null && !connect.isBlank()) {
            throw CliException.usage("--connect " + connect + " and --directory exclude each other: the directory says"
                    + " where the server is; give --connect without HOST:PORT, or leave --directory out");
        }
        if (advertise != null && !serve) {
            throw CliException.usage("--advertise is for --serve");
        }
        if (target != null && !DirectoryLimits.isValidMemberId(target)) {
            throw CliException.usage("--target must be 1-" + DirectoryLimits.MAX_MEMBER_ID_LENGTH + " characters of"
                    + " [A-Za-z0-9._:@-], not '" + target + "'");
        }
    }

    /**
     * The etcd directory of {@code --directory ENDPOINTS} (empty: $ETCDCTL_ENDPOINTS), with
     * etcdctl's variables and the --etcd-* options; null without {@code --directory}.
     */
    public @Nullable BenchDirectory directory() {
        String endpoints = directory;
        if (endpoints == null) {
            return null;
        }
        if ((etcdCert == null) != (etcdKey == null)) {
            throw CliException.usage(etcdCert == null ? "--etcd-key goes with --etcd-cert" : "--etcd-cert goes with"
                    + " --etcd-key");
        }
        return BenchDirectory.etcd(endpoints, prefix == null ? BenchDirectory.DEFAULT_PREFIX : prefix,
                new BenchDirectory.EtcdAccess(etcdCacert, etcdCert, etcdKey, etcdUser, etcdPasswordFile, etcdInsecure,
                        System.getenv()));
    }

    /** {@code --target}: the server to measure against, or null for the only one published. */
    public @Nullable String target() {
        return target;
    }

    /** {@code --advertise}, or null. */
    public @Nullable String advertise() {
        return advertise;
    }

    /** The name a server publishes itself under: {@code --target}, else its host name as a member id. */
    public String serverName() {
        if (target != null) {
            return target;
        }
        String name = ServerConfig.hostName().replaceAll("[^A-Za-z0-9._:@-]", "-");
        name = name.length() > DirectoryLimits.MAX_MEMBER_ID_LENGTH
                ? name.substring(0, DirectoryLimits.MAX_MEMBER_ID_LENGTH) : name;
        return name.isEmpty() ? "bench" : name;
    }
}
