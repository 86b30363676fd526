/**
 * The NIXL backend: NVIDIA NIXL's C library ({@code libnixl_capi.so}) through the Foreign Function
 * and Memory API. No JNI and no native code of its own; the JVM must grant this module native
 * access ({@code --enable-native-access=io.blockxfer.transport.nixl}).
 */
module io.blockxfer.transport.nixl {
    requires transitive io.blockxfer.transport;
    requires static com.google.auto.service;
    requires static org.jspecify;

    exports io.blockxfer.nixl;

    provides io.blockxfer.transport.spi.TransportProvider with io.blockxfer.nixl.NixlProvider;
}
