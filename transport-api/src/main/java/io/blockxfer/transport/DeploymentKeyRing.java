package io.blockxfer.transport;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import javax.crypto.Mac;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.SecretKeySpec;

/**
 * The deployment's shared secret keys that authenticate peer descriptors: one signing key, with
 * which a transport signs its {@link DataTransport#localDescriptor()}, and any number of further
 * verification keys, which are only accepted. Set it with
 * {@link TransportConfig.Builder#keyRing(DeploymentKeyRing)}; a transport with a key ring then
 * registers only peers whose descriptor carries a valid HMAC-SHA-256 under one of its keys.
 *
 * <p>Rotation without downtime: (1) give every process the new key as a verification key
 * ({@code of("k1", old).withVerificationKey("k2", new)}); (2) switch every process to sign with it
 * ({@code of("k2", new).withVerificationKey("k1", old)}); (3) drop the old one
 * ({@code of("k2", new)}). Descriptors signed with a dropped key are rejected from then on.
 *
 * <p>Other modules authenticate their own messages under the same keys with
 * {@link #sign(String, byte[])} and {@link #verify(String, String, byte[], byte[])}, each in a domain
 * of its own, so that a MAC made for one kind of message is never valid for another kind, nor for
 * a descriptor. Rotation applies to them as to descriptors.
 *
 * <p>Keys are at least {@value #MIN_KEY_BYTES} bytes of secret randomness (a passphrase is not a
 * key). Key ids are not secret: they travel in every signed descriptor and appear in messages;
 * key material never does, nor does {@link #toString()} show it.
 *
 * <p><b>Thread safety:</b> immutable; the {@code with...} methods return new rings.
 */
public final class DeploymentKeyRing {

    /** The shortest key accepted, in bytes (the output length of SHA-256). */
    public static final int MIN_KEY_BYTES = 32;
    /** The longest key id accepted, in characters. */
    public static final int MAX_KEY_ID_LENGTH = 64;
    /** The length of a MAC in bytes (HMAC-SHA-256), of a descriptor's as of {@link #sign(String, byte[])}'s. */
    public static final int MAC_LENGTH = 32;
    /** The longest domain of {@link #sign(String, byte[])} accepted, in characters. */
    public static final int MAX_DOMAIN_LENGTH = 64;
    /** The length of a descriptor's MAC in bytes. */
    static final int MAC_BYTES = MAC_LENGTH;

    private static final String ALGORITHM = "HmacSHA256";

    private final String signingKeyId;
    private final Map<String, byte[]> keys;
    /** Initialised MACs per key id, reused by the slice forms of sign and verify (a cache, not state). */
    private final Map<String, ConcurrentLinkedQueue<Mac>> macs = new ConcurrentHashMap<>();

    private DeploymentKeyRing(String signingKeyId, Map<String, byte[]> keys) {
        this.signingKeyId = signingKeyId;
        this.keys = Collections.unmodifiableMap(keys);
    }

    /**
     * A ring that signs with {@code key}, known by {@code keyId}, and accepts only it.
     *
     * @param keyId 1-{@value #MAX_KEY_ID_LENGTH} characters of {@code [A-Za-z0-9._-]}
     * @param key at least {@value #MIN_KEY_BYTES} bytes; copied
     * @throws IllegalArgumentException if the id or the key is out of range
     */
    public static DeploymentKeyRing of(String keyId, byte[] key) {
        Map<String, byte[]> keys = new LinkedHashMap<>();
        keys.put(checkId(keyId), checkKey(keyId, key));
        return new DeploymentKeyRing(keyId, keys);
    }

    /**
     * This ring, also accepting descriptors signed with {@code key} under {@code keyId}.
     *
     * @throws IllegalArgumentException if the id or key is out of range, or the id is already in
     *     the ring
     */
    public DeploymentKeyRing withVerificationKey(String keyId, byte[] key) {
        checkId(keyId);
        byte[] copy = checkKey(keyId, key);
        if (keys.containsKey(keyId)) {
            throw new IllegalArgumentException("key id '" + keyId + "' is already in the key ring");
        }
        Map<String, byte[]> more = new LinkedHashMap<>(keys);
        more.put(keyId, copy);
        return new DeploymentKeyRing(signingKeyId, more);
    }

    /**
     * This ring without the verification key {@code keyId}: descriptors signed with it are
     * rejected from then on.
     *
     * @throws IllegalArgumentException if {@code keyId} is the signing key or not in the ring
     */
    public DeploymentKeyRing withoutVerificationKey(String keyId) {
        Objects.requireNonNull(keyId, "keyId");
        if (keyId.equals(signingKeyId)) {
            throw new IllegalArgumentException("key id '" + keyId + "' is the signing key; build a ring that signs"
                    + " with another key instead");
        }
        if (!keys.containsKey(keyId)) {
            throw new IllegalArgumentException("key id '" + keyId + "' is not in the key ring " + keys.keySet());
        }
        Map<String, byte[]> fewer = new LinkedHashMap<>(keys);
        fewer.remove(keyId);
        return new DeploymentKeyRing(signingKeyId, fewer);
    }

    /** The id of the key that signs this process's descriptors. */
    public String signingKeyId() {
        return signingKeyId;
    }

    /** Every key id this ring accepts, the signing key's first; unmodifiable. */
    public Set<String> keyIds() {
        return keys.keySet();
    }

    /** Whether descriptors signed under {@code keyId} can be verified. */
    public boolean contains(String keyId) {
        return keys.containsKey(keyId);
    }

    /**
     * Checks that {@code descriptor} is signed with a key of this ring and unchanged since.
     *
     * @throws UnauthenticatedPeerException if it is unsigned, signed with a key not in the ring, or
     *     its signature does not match its bytes; {@link UnauthenticatedPeerException#reason()}
     *     says which
     */
    public void verify(PeerDescriptor descriptor) {
        Objects.requireNonNull(descriptor, "descriptor");
        String keyId = descriptor.signingKeyId();
        byte[] mac = descriptor.mac();
        if (keyId == null || mac == null) {
            throw new UnauthenticatedPeerException(UnauthenticatedPeerException.Reason.UNSIGNED,
                    "peer descriptor is unsigned, and this deployment requires descriptors signed with its key ring "
                    + keys.keySet());
        }
        byte[] signed = descriptor.signedBytes();
        verify(keyId, signed, 0, signed.length, mac, 0);
    }

    /** Verifies the MAC at {@code mac[macOffset..+32)} over {@code data[offset..+length)}. */
    void verify(String keyId, byte[] data, int offset, int length, byte[] mac, int macOffset) {
        byte[] key = keys.get(keyId);
        if (key == null) {
            throw new UnauthenticatedPeerException(UnauthenticatedPeerException.Reason.UNKNOWN_KEY,
                    "peer descriptor is signed with key '" + keyId + "', which is not in the key ring " + keys.keySet()
                    + " (an unknown or retired key)");
        }
        byte[] expected = mac(key, data, offset, length);
        byte[] actual = Arrays.copyOfRange(mac, macOffset, macOffset + MAC_BYTES);
        if (!MessageDigest.isEqual(expected, actual)) {
            throw new UnauthenticatedPeerException(UnauthenticatedPeerException.Reason.CHANGED_AFTER_SIGNING,
                    "peer descriptor signed with key '" + keyId + "' does not match its signature: it was changed"
                    + " after signing (or signed with another key under the same id)");
        }
    }

    /**
     * The MAC of {@code message} in {@code domain} under the signing key: HMAC-SHA-256 over one
     * byte holding the domain's length, the domain's ASCII characters, then the message. The
     * length byte makes every (domain, message) pair a distinct input, and since a domain has at
     * most {@value #MAX_DOMAIN_LENGTH} characters that first byte is never {@code 'B'} (66), the
     * first byte of every descriptor a descriptor MAC covers: a MAC made here is never a valid
     * descriptor signature, nor one of another domain. A message that names the key it is signed
     * with (as it should, so that the verifier can pick the key and the key id is authenticated
     * too) writes {@link #signingKeyId()} into itself before it is signed.
     *
     * @param domain what kind of message this is, 1-{@value #MAX_DOMAIN_LENGTH} characters of
     *     {@code [A-Za-z0-9._-]}, e.g. {@code "blockxfer.directory.entry.v1"}
     * @return a new array of {@value #MAC_LENGTH} bytes
     * @throws IllegalArgumentException if the domain is malformed
     * @throws NullPointerException if an argument is null
     */
    public byte[] sign(String domain, byte[] message) {
        byte[] prefix = domainPrefix(domain);
        Objects.requireNonNull(message, "message");
        return mac(Objects.requireNonNull(keys.get(signingKeyId), "a key ring holds its signing key"), prefix,
                message);
    }

    /**
     * Checks that {@code mac} is the MAC of {@code message} in {@code domain} under the key
     * {@code keyId} of this ring, as {@link #sign(String, byte[])} makes it there; compared in
     * constant time. Any key of the ring verifies, so a message signed before or during a rotation
     * passes as long as its key is in the ring.
     *
     * @throws UnauthenticatedPeerException with {@link UnauthenticatedPeerException.Reason#UNKNOWN_KEY}
     *     if {@code keyId} is not in the ring (an unknown or retired key), or
     *     {@link UnauthenticatedPeerException.Reason#CHANGED_AFTER_SIGNING} if the MAC does not match
     *     (the message was changed after signing, belongs to another domain, or was signed with
     *     another key under the same id)
     * @throws IllegalArgumentException if the domain is malformed or the MAC is not
     *     {@value #MAC_LENGTH} bytes long
     * @throws NullPointerException if an argument is null
     */
    public void verify(String domain, String keyId, byte[] message, byte[] mac) {
        byte[] prefix = domainPrefix(domain);
        Objects.requireNonNull(keyId, "keyId");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(mac, "mac");
        if (mac.length != MAC_LENGTH) {
            throw new IllegalArgumentException("a MAC has " + MAC_LENGTH + " bytes, not " + mac.length);
        }
        byte[] key = keys.get(keyId);
        if (key == null) {
            throw new UnauthenticatedPeerException(UnauthenticatedPeerException.Reason.UNKNOWN_KEY,
                    "'" + domain + "' message is signed with key '" + printableId(keyId) + "', which is not in the key"
                    + " ring " + keys.keySet() + " (an unknown or retired key)");
        }
        if (!MessageDigest.isEqual(mac(key, prefix, message), mac)) {
            throw new UnauthenticatedPeerException(UnauthenticatedPeerException.Reason.CHANGED_AFTER_SIGNING,
                    "'" + domain + "' message signed with key '" + keyId + "' does not match its MAC: it was changed"
                    + " after signing (or signed in another domain, or with another key under the same id)");
        }
    }

    /**
     * As {@link #sign(String, byte[])} over {@code message[offset..offset+length)}, writing the
     * {@value #MAC_LENGTH}-byte MAC into {@code mac} at {@code macOffset}: the form for messages
     * signed at a high rate (a transport's notifications), which reuses initialised MACs instead of
     * building one per call.
     *
     * @throws IllegalArgumentException if the domain is malformed
     * @throws IndexOutOfBoundsException if a range lies outside its array
     */
    public void sign(String domain, byte[] message, int offset, int length, byte[] mac, int macOffset) {
        byte[] prefix = domainPrefix(domain);
        Objects.checkFromIndexSize(offset, length, message.length);
        Objects.checkFromIndexSize(macOffset, MAC_LENGTH, mac.length);
        macInto(signingKeyId, prefix, message, offset, length, mac, macOffset);
    }

    /**
     * Whether {@code mac[macOffset..+}{@value #MAC_LENGTH}{@code )} is the MAC of
     * {@code message[offset..offset+length)} in {@code domain} under the key {@code keyId} of this
     * ring, as {@link #sign(String, byte[], int, int, byte[], int)} makes it; compared in constant
     * time. False for a key id not in the ring. The form of {@link #verify(String, String, byte[],
     * byte[])} for messages checked at a high rate: it throws only for malformed arguments.
     *
     * @throws IllegalArgumentException if the domain is malformed
     * @throws IndexOutOfBoundsException if a range lies outside its array
     */
    public boolean matches(String domain, String keyId, byte[] message, int offset, int length, byte[] mac,
            int macOffset) {
        byte[] prefix = domainPrefix(domain);
        Objects.requireNonNull(keyId, "keyId");
        Objects.checkFromIndexSize(offset, length, message.length);
        Objects.checkFromIndexSize(macOffset, MAC_LENGTH, mac.length);
        if (!keys.containsKey(keyId)) {
            return false;
        }
        byte[] expected = new byte[MAC_LENGTH];
        macInto(keyId, prefix, message, offset, length, expected, 0);
        return MessageDigest.isEqual(expected, Arrays.copyOfRange(mac, macOffset, macOffset + MAC_LENGTH));
    }

    private void macInto(String keyId, byte[] prefix, byte[] message, int offset, int length, byte[] out,
            int outOffset) {
        ConcurrentLinkedQueue<Mac> pool = macs.computeIfAbsent(keyId, k -> new ConcurrentLinkedQueue<>());
        Mac mac = pool.poll();
        try {
            if (mac == null) {
                mac = Mac.getInstance(ALGORITHM);
                mac.init(new SecretKeySpec(Objects.requireNonNull(keys.get(keyId), "key"), ALGORITHM));
            }
            mac.update(prefix);
            mac.update(message, offset, length);
            mac.doFinal(out, outOffset);
        } catch (ShortBufferException e) {
            throw new IndexOutOfBoundsException("no room for a MAC at " + outOffset + ": " + e.getMessage());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(ALGORITHM + " is not available in this JVM", e);
        }
        if (pool.size() < 64) {
            pool.offer(mac);
        }
    }

    private static byte[] domainPrefix(String domain) {
        Objects.requireNonNull(domain, "domain");
        if (!isValidId(domain)) {
            throw new IllegalArgumentException("a MAC domain must be 1-" + MAX_DOMAIN_LENGTH
                    + " chars of [A-Za-z0-9._-]: '" + printableId(domain) + "'");
        }
        byte[] prefix = new byte[1 + domain.length()];
        prefix[0] = (byte) domain.length();
        for (int i = 0; i < domain.length(); i++) {
            prefix[1 + i] = (byte) domain.charAt(i);
        }
        return prefix;
    }

    private static String printableId(String id) {
        String cut = id.length() > 80 ? id.substring(0, 80) + "..." : id;
        return cut.chars().allMatch(c -> c >= 0x20 && c < 0x7f) ? cut : "<non-printable>";
    }

    private static byte[] mac(byte[] key, byte[] prefix, byte[] message) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
            mac.update(prefix);
            mac.update(message);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(ALGORITHM + " is not available in this JVM", e);
        }
    }

    /** The MAC of {@code data[offset..+length)} under the signing key. */
    byte[] sign(byte[] data, int offset, int length) {
        return mac(Objects.requireNonNull(keys.get(signingKeyId), "a key ring holds its signing key"), data, offset,
                length);
    }

    private static byte[] mac(byte[] key, byte[] data, int offset, int length) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
            mac.update(data, offset, length);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(ALGORITHM + " is not available in this JVM", e);
        }
    }

    /** Whether {@code keyId} is a well-formed key id. */
    static boolean isValidId(String keyId) {
        return !keyId.isEmpty() && keyId.length() <= MAX_KEY_ID_LENGTH
                && keyId.chars().allMatch(DeploymentKeyRing::idChar);
    }

    private static boolean idChar(int c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_'
                || c == '-';
    }

    private static String checkId(String keyId) {
        Objects.requireNonNull(keyId, "keyId");
        if (!isValidId(keyId)) {
            throw new IllegalArgumentException("key id must be 1-" + MAX_KEY_ID_LENGTH
                    + " chars of [A-Za-z0-9._-]: '" + (keyId.length() > 80 ? keyId.substring(0, 80) + "..." : keyId)
                    + "'");
        }
        return keyId;
    }

    private static byte[] checkKey(String keyId, byte[] key) {
        Objects.requireNonNull(key, "key");
        if (key.length < MIN_KEY_BYTES) {
            throw new IllegalArgumentException("key '" + keyId + "' has " + key.length + " bytes; at least "
                    + MIN_KEY_BYTES + " are needed");
        }
        return key.clone();
    }

    /** The key ids, never the key material. */
    @Override
    public String toString() {
        return "DeploymentKeyRing[signing '" + signingKeyId + "', accepting " + keys.keySet() + "]";
    }
}
