package io.blockxfer.tck;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.spi.Availability;
import io.blockxfer.transport.spi.TransportProvider;
import java.util.Objects;
import java.util.Set;

/**
 * A provider that answers as {@code delegate} does (its name, availability and capabilities), with
 * priority 0 so that it never wins a choice by priority, and opens transports as its subclass says:
 * the frame of the self-tests' providers that break one promise of a working backend.
 *
 * <p><b>Thread safety:</b> as thread-safe as its delegate and its subclass's {@code open}.
 *
 * @param <P> the delegate's type
 */
abstract class ForwardingProvider<P extends TransportProvider> implements TransportProvider {

    /** The provider whose answers this one gives. */
    protected final P delegate;

    ForwardingProvider(P delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public int priority() {
        return 0;
    }

    @Override
    public Availability availability() {
        return delegate.availability();
    }

    @Override
    public Set<Capability> capabilities() {
        return delegate.capabilities();
    }
}
