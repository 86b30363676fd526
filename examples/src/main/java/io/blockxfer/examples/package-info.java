/**
 * The code the README and the guides under {@code docs/} show: each region a page includes is
 * marked {@code // @start region="NAME"} ... {@code // @end region="NAME"} (javadoc's snippet
 * markup), and the examples module's tests check that every Java block of the documentation is
 * such a region, word for word, and run the examples against the loopback backend.
 */
package io.blockxfer.examples;
