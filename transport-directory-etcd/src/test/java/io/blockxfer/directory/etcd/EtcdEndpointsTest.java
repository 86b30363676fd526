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
    void dropsDuplicatesKeepingTheOrder() {
        assertEquals(List.of("b:2", "a:1"), EtcdEndpoints.parse("etcd://b:2,a:1,b:2").hostPorts());
    }

    @Test
    void refusesMalformedListsNamingThem() {
        for (String bad : List.of("", "etcd://", "etcd://host", "etcd://host:", "etcd://:2379", "etcd://h:0",
                "etcd://h:65536", "etcd://h:port", "etcd://a:1,,b:2", "etcd://h o:1", "etcd://http://h:1",
                "https://h:2379", "etcd://h/x:1")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> EtcdEndpoints.parse(bad),
                    bad);
            assertTrue(e.getMessage().contains("etcd endpoints '" + bad + "'"), e.getMessage());
        }
        assertTrue(assertThrows(IllegalArgumentException.class, () -> EtcdEndpoints.parse("https://h:2379"))
                .getMessage().contains("TLS"));
        assertThrows(NullPointerException.class, () -> EtcdEndpoints.parse(null));
    }
}
