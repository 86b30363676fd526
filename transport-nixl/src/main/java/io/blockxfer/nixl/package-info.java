/**
 * The {@code nixl} backend of blockxfer: {@link io.blockxfer.nixl.NixlProvider}, its options
 * ({@link io.blockxfer.nixl.NixlOptions}) and its telemetry feature
 * ({@link io.blockxfer.nixl.NixlTelemetry}). The FFM binding lives in
 * {@code io.blockxfer.nixl.internal}, which is not exported.
 */
package io.blockxfer.nixl;
