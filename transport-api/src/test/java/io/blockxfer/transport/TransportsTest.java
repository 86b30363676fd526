package io.blockxfer.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.testing.GoodProvider;
import io.blockxfer.transport.testing.LesserProvider;
import io.blockxfer.transport.testing.UnavailableProvider;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Discovery over the test class path, which holds two good providers and four broken ones. */
class TransportsTest {

    private final TransportConfig config = TransportConfig.builder(RegionSpec.allocate(4, 64)).build();

    @AfterEach
    void clearProperty() {
        System.clearProperty(Transports.TRANSPORT_PROPERTY);
    }

    @Test
    void brokenProvidersAreListedWithTheirCauseAndBreakNothing() {
        List<ProviderInfo> found = Transports.providers();
        assertEquals(6, found.size(), found.toString());
        assertEquals(List.of("good", "lesser"), found.stream().filter(ProviderInfo::isAvailable).map(ProviderInfo::name).toList());
        ProviderInfo throwing = found.stream().filter(p -> p.name().equals("throwing")).findFirst().orElseThrow();
        assertTrue(throwing.availability().cause().contains("probe exploded"), throwing.describe());
        assertTrue(found.stream().anyMatch(p -> p.availability().cause().contains("broken constructor")), found.toString());
        assertTrue(found.stream().anyMatch(p -> p.availability().cause().contains("MissingProvider")), found.toString());
        ProviderInfo unavailable = found.stream().filter(p -> p.name().equals("unavailable")).findFirst().orElseThrow();
        assertFalse(unavailable.isAvailable());
        assertTrue(unavailable.availability().error().isPresent(), "the load error must be kept");
        assertEquals("good 1.0", found.get(0).nativeVersion());
    }

    @Test
    void theBestAvailableProviderIsChosenWhenNoneIsNamed() {
        assertEquals(GoodProvider.class, Transports.select(config).getClass());
        DataTransport closed;
        try (DataTransport t = Transports.open(config.toBuilder().agentName("prefill-0").build())) {
            assertEquals("scripted", t.backendName());
            assertEquals("prefill-0", t.agentName());
            closed = t;
        }
        assertEquals("prefill-0", closed.agentName(), "the agent name answers after close");
    }

    @Test
    void anExplicitChoiceWinsAndThePropertyWinsOverTheConfig() {
        TransportConfig lesser = config.toBuilder().transport("lesser").build();
        assertEquals(LesserProvider.class, Transports.select(lesser).getClass());
        System.setProperty(Transports.TRANSPORT_PROPERTY, "good");
        assertEquals(GoodProvider.class, Transports.select(lesser).getClass());
    }

    @Test
    void namingABackendProbesNoOtherBackend() {
        UnavailableProvider.PROBES.set(0);
        assertEquals(LesserProvider.class, Transports.select("lesser", getClass().getClassLoader()).getClass());
        assertEquals(0, UnavailableProvider.PROBES.get(),
                "selecting 'lesser' probed (loaded the native library of) the 'unavailable' provider");
        Transports.select((String) null, getClass().getClassLoader());
        assertEquals(1, UnavailableProvider.PROBES.get(), "auto probes in priority order: 'unavailable' (9) first");
    }

    @Test
    void anUnavailableChoiceFailsWithEveryProvidersCause() {
        var e = assertThrows(TransportUnavailableException.class,
                () -> Transports.select(config.toBuilder().transport("unavailable").build()));
        assertTrue(e.getMessage().contains("libfake.so.1"), e.getMessage());
        assertTrue(e.getMessage().contains("good (priority 3): available"), e.getMessage());
        assertTrue(e.getCause() instanceof UnsatisfiedLinkError, "the load error is the cause");
        var unknown = assertThrows(TransportUnavailableException.class,
                () -> Transports.select("nope", getClass().getClassLoader()));
        assertTrue(unknown.getMessage().startsWith("unknown transport 'nope'"), unknown.getMessage());
        assertTrue(unknown.getMessage().contains("throwing (priority 0): unavailable: provider failed to answer"),
                unknown.getMessage());
    }

    @Test
    void nothingAvailableListsWhatWasFound() {
        ClassLoader empty = new ClassLoader(null) { };
        var e = assertThrows(TransportUnavailableException.class, () -> Transports.select((String) null, empty));
        assertTrue(e.getMessage().contains("none"), e.getMessage());
    }
}
