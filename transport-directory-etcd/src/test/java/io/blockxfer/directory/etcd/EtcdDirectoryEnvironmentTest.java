package io.blockxfer.directory.etcd;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * etcdctl's variables as {@link EtcdDirectory#fromEnvironment(Map)} and
 * {@link EtcdDirectory.Builder#environment(Map)} read them, and the refusals of contradictory
 * settings, before anything is contacted (no etcd).
 */
class EtcdDirectoryEnvironmentTest {

    private static IllegalArgumentException refused(Map<String, String> environment) {
        return assertThrows(IllegalArgumentException.class, () -> EtcdDirectory.fromEnvironment(environment).build());
    }

    @Test
    void eachMalformedOrIncompleteVariableIsNamed() {
        String at = "https://127.0.0.1:1";
        assertTrue(refused(Map.of()).getMessage().contains("ETCDCTL_ENDPOINTS is not set"));
        assertTrue(refused(Map.of("ETCDCTL_ENDPOINTS", "https://h")).getMessage().startsWith("ETCDCTL_ENDPOINTS: "));
        assertTrue(refused(Map.of("ETCDCTL_ENDPOINTS", at, "ETCDCTL_CERT", "/c.pem")).getMessage()
                .contains("ETCDCTL_CERT is set without ETCDCTL_KEY"));
        assertTrue(refused(Map.of("ETCDCTL_ENDPOINTS", at, "ETCDCTL_KEY", "/k.pem")).getMessage()
                .contains("ETCDCTL_KEY is set without ETCDCTL_CERT"));
        assertTrue(refused(Map.of("ETCDCTL_ENDPOINTS", at, "ETCDCTL_USER", "alice")).getMessage()
                .contains("without a password"));
        assertTrue(refused(Map.of("ETCDCTL_ENDPOINTS", at, "ETCDCTL_PASSWORD", "pw")).getMessage()
                .contains("ETCDCTL_PASSWORD is set without ETCDCTL_USER"));
        assertTrue(refused(Map.of("ETCDCTL_ENDPOINTS", at, "ETCDCTL_INSECURE_SKIP_TLS_VERIFY", "yes")).getMessage()
                .contains("ETCDCTL_INSECURE_SKIP_TLS_VERIFY must be true or false"));
        assertTrue(refused(Map.of("ETCDCTL_ENDPOINTS", "http://127.0.0.1:1", "ETCDCTL_CACERT", "/ca.pem"))
                .getMessage().contains("plain text (http://) but TLS settings are given"));
    }

    @Test
    void contradictoryBuilderSettingsAreRefused() {
        EtcdDirectory.Builder b = EtcdDirectory.builder("etcd://127.0.0.1:1");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> EtcdDirectory.builder("etcd://127.0.0.1:1")
                .user("alice").build()).getMessage().contains("has no password"));
        assertThrows(IllegalArgumentException.class, () -> b.user("a:b"));
        assertThrows(IllegalArgumentException.class, () -> b.user(""));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> EtcdDirectory.builder("etcd://127.0.0.1:1")
                .password("pw".toCharArray()).build()).getMessage().contains("without a user"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> EtcdDirectory.builder("etcd://127.0.0.1:1")
                .user("alice").passwordFile(java.nio.file.Path.of("/nonexistent/password")).build()).getMessage()
                .contains("/nonexistent/password"));
    }
}
