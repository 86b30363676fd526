package io.blockxfer.directory.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Endpoint lists in the project's form and in etcd's, and the refusals of malformed ones. */
class EtcdEndpointsTest {

    @Test
    void readsTheProjectsForm() {
        EtcdEndpoints e = EtcdEndpoints.parse("etcd://198.18.0.1:2379,etcd-2.example:2379, [::1]:2380");
        assertEquals(List.of("198.18.0.1:2379", "etcd-2.example:2379", "[::1]:2380"), e.hostPorts());
        assertEquals(List.of(URI.create("http://198.18.0.1:2379"), URI.create("http://etcd-2.example:2379"),
                URI.create("http://[::1]:2380")), e.uris());
        assertEquals("etcd://198.18.0.1:2379,etcd-2.example:2379,[::1]:2380", e.toString());
        assertEquals(e, EtcdEndpoints.parse(e.toString()));
    }

    @Test
    void readsEtcdsFormWithOrWithoutTheSchemeAfterTheFirst() {
        assertEquals(List.of("127.0.0.1:2379", "127.0.0.1:22379"),
                EtcdEndpoints.parse("http://127.0.0.1:2379,http://127.0.0.1:22379/").hostPorts());
        assertEquals(List.of("127.0.0.1:2379", "127.0.0.1:22379"),
                EtcdEndpoints.parse("http://127.0.0.1:2379,127.0.0.1:22379").hostPorts());
        assertEquals(List.of("localhost:2379"), EtcdEndpoints.parse("localhost:2379").hostPorts());
    }

    @Test
    void readsHttpsAsTlsWithOrWithoutTheSchemeAfterTheFirst() {
        EtcdEndpoints e = EtcdEndpoints.parse("https://127.0.0.1:2379,127.0.0.1:22379, https://etcd-3.example:2379/");
        assertEquals(List.of("127.0.0.1:2379", "127.0.0.1:22379", "etcd-3.example:2379"), e.hostPorts());
        assertEquals(EtcdEndpoints.Scheme.HTTPS, e.scheme());
        assertEquals(List.of(URI.create("https://127.0.0.1:2379"), URI.create("https://127.0.0.1:22379"),
                URI.create("https://etcd-3.example:2379")), e.uris());
        assertEquals("https://127.0.0.1:2379,https://127.0.0.1:22379,https://etcd-3.example:2379", e.toString());
        assertEquals(e, EtcdEndpoints.parse(e.toString()));
        assertEquals(EtcdEndpoints.Scheme.HTTP, EtcdEndpoints.parse("http://h:1").scheme());
        assertEquals(EtcdEndpoints.Scheme.ETCD, EtcdEndpoints.parse("etcd://h:1").scheme());
        assertEquals(EtcdEndpoints.Scheme.ETCD, EtcdEndpoints.parse("h:1,h:2").scheme());
    }

    @Test
    void dropsDuplicatesKeepingTheOrder() {
        assertEquals(List.of("b:2", "a:1"), EtcdEndpoints.parse("etcd://b:2,a:1,b:2").hostPorts());
    }

    @Test
    void refusesMalformedListsNamingThem() {
        for (String bad : List.of("", "etcd://", "etcd://host", "etcd://host:", "etcd://:2379", "etcd://h:0",
                "etcd://h:65536", "etcd://h:port", "etcd://a:1,,b:2", "etcd://h o:1", "etcd://http://h:1",
                "etcd://https://h:1", "http://a:1,https://b:2", "https://a:1,http://b:2", "https://h", "etcd://h/x:1")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> EtcdEndpoints.parse(bad),
                    bad);
            assertTrue(e.getMessage().contains("etcd endpoints '" + bad + "'"), e.getMessage());
        }
        assertTrue(assertThrows(IllegalArgumentException.class, () -> EtcdEndpoints.parse("https://a:1,http://b:2"))
                .getMessage().contains("mixes https:// and http://"));
        assertThrows(NullPointerException.class, () -> EtcdEndpoints.parse(null));
    }
}
