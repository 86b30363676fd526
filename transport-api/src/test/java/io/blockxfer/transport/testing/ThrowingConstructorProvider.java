package io.blockxfer.transport.testing;

/** A provider whose constructor fails, as a broken jar's would. */
public class ThrowingConstructorProvider extends GoodProvider {
    public ThrowingConstructorProvider() {
        throw new IllegalStateException("broken constructor");
    }
}
