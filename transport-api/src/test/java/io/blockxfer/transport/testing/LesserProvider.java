package io.blockxfer.transport.testing;

/** An available provider below {@link GoodProvider} in priority. */
public class LesserProvider extends GoodProvider {
    @Override public String name() { return "lesser"; }
    @Override public int priority() { return 1; }
}
