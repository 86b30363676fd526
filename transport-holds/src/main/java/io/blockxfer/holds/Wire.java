package io.blockxfer.holds;

import java.util.Arrays;

/**
 * The byte layout shared by every hold message and grant: a four-byte prefix ({@code 'B' 'X' 'H'}
 * and the format version), a type byte, then big-endian fixed-width fields and unsigned LEB128
 * varints. A writer grows its buffer; a reader checks every length before it reads and throws
 * {@link IllegalArgumentException} naming what is wrong.
 *
 * <p><b>Thread safety:</b> a writer or reader belongs to one thread.
 */
final class Wire {

    /** The prefix every hold message starts with: 'B' 'X' 'H' and the format version 1. */
    static final byte[] PREFIX = {'B', 'X', 'H', 1};

    private Wire() {
    }

    /** Whether {@code payload} starts with {@link #PREFIX}. */
    static boolean hasPrefix(byte[] payload) {
        return payload.length > PREFIX.length && Arrays.equals(payload, 0, PREFIX.length, PREFIX, 0, PREFIX.length);
    }

    /** Builds one message. */
    static final class Writer {
        private byte[] buf;
        private int pos;

        Writer(int type, int capacity) {
            buf = new byte[Math.max(capacity, 16)];
            System.arraycopy(PREFIX, 0, buf, 0, PREFIX.length);
            pos = PREFIX.length;
            put(type);
        }

        private void ensure(int more) {
            if (pos + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + more));
            }
        }

        Writer put(int b) {
            ensure(1);
            buf[pos++] = (byte) b;
            return this;
        }

        Writer putShort(int v) {
            ensure(2);
            buf[pos++] = (byte) (v >>> 8);
            buf[pos++] = (byte) v;
            return this;
        }

        Writer putInt(int v) {
            ensure(4);
            for (int s = 24; s >= 0; s -= 8) {
                buf[pos++] = (byte) (v >>> s);
            }
            return this;
        }

        Writer putLong(long v) {
            ensure(8);
            for (int s = 56; s >= 0; s -= 8) {
                buf[pos++] = (byte) (v >>> s);
            }
            return this;
        }

        Writer putVarint(long v) {
            ensure(10);
            long rest = v;
            while ((rest & ~0x7FL) != 0) {
                buf[pos++] = (byte) ((rest & 0x7F) | 0x80);
                rest >>>= 7;
            }
            buf[pos++] = (byte) rest;
            return this;
        }

        Writer putBytes(byte[] bytes) {
            ensure(bytes.length);
            System.arraycopy(bytes, 0, buf, pos, bytes.length);
            pos += bytes.length;
            return this;
        }

        byte[] toBytes() {
            return Arrays.copyOf(buf, pos);
        }
    }

    /** Reads one message, after its prefix and type. */
    static final class Reader {
        private final byte[] buf;
        private final String what;
        private int pos;

        /**
         * A reader of {@code payload}, positioned after the prefix and type byte.
         *
         * @throws IllegalArgumentException if the payload lacks the prefix or a type
         */
        Reader(byte[] payload, String what) {
            this.buf = payload;
            this.what = what;
            if (!hasPrefix(payload)) {
                throw new IllegalArgumentException(what + ": not a hold message (no 'BXH' version 1 prefix)");
            }
            pos = PREFIX.length + 1;
        }

        int type() {
            return buf[PREFIX.length] & 0xFF;
        }

        private void need(int n, String field) {
            if (n < 0 || buf.length - pos < n) {
                throw new IllegalArgumentException(what + ": truncated at byte " + pos + " reading " + field);
            }
        }

        int get(String field) {
            need(1, field);
            return buf[pos++] & 0xFF;
        }

        int getShort(String field) {
            need(2, field);
            int v = ((buf[pos] & 0xFF) << 8) | (buf[pos + 1] & 0xFF);
            pos += 2;
            return v;
        }

        int getInt(String field) {
            need(4, field);
            int v = 0;
            for (int i = 0; i < 4; i++) {
                v = (v << 8) | (buf[pos++] & 0xFF);
            }
            return v;
        }

        long getLong(String field) {
            need(8, field);
            long v = 0;
            for (int i = 0; i < 8; i++) {
                v = (v << 8) | (buf[pos++] & 0xFF);
            }
            return v;
        }

        /** An unsigned varint of at most 31 bits. */
        int getVarint(String field) {
            long v = 0;
            for (int shift = 0; shift < 35; shift += 7) {
                need(1, field);
                int b = buf[pos++] & 0xFF;
                v |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    if (v > Integer.MAX_VALUE) {
                        throw new IllegalArgumentException(what + ": " + field + " " + v + " is out of range");
                    }
                    return (int) v;
                }
            }
            throw new IllegalArgumentException(what + ": " + field + " is not a valid varint");
        }

        byte[] getBytes(int n, String field) {
            need(n, field);
            byte[] out = Arrays.copyOfRange(buf, pos, pos + n);
            pos += n;
            return out;
        }

        /** Checks that every byte was read. */
        void end() {
            if (pos != buf.length) {
                throw new IllegalArgumentException(what + ": " + (buf.length - pos) + " bytes after the end");
            }
        }
    }
}
