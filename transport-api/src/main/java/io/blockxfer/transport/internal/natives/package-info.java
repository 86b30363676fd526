/**
 * Finding the project's {@code natives/} folder; shared by the native backends, not API (exported
 * only to them).
 */
package io.blockxfer.transport.internal.natives;
