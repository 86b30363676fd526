package io.blockxfer.directory;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The limits every {@link Directory} enforces, and the checks that enforce them, for
 * implementations and their callers alike:
 * <ul>
 *   <li>a <b>prefix</b> (one deployment's part of the directory) is 2-{@value #MAX_PREFIX_LENGTH}
 *       characters of {@code [A-Za-z0-9._:@/-]} that start and end with {@code /} and hold no
 *       empty, {@code .} or {@code ..} segment, e.g. {@code /blockxfer/prod-eu/}. The closing
 *       {@code /} keeps {@code /a/dep1/} from also matching the keys of {@code /a/dep10/};</li>
 *   <li>a <b>member id</b> is 1-{@value #MAX_MEMBER_ID_LENGTH} characters of
 *       {@code [A-Za-z0-9._:@-]} (no {@code /}: a member is one key directly under the prefix);</li>
 *   <li>a <b>group</b> is 1-{@value #MAX_GROUP_LENGTH} characters of the same set (see
 *       {@link DirectoryScope} for the group keys);</li>
 *   <li>a <b>TTL</b> is a whole number of seconds from {@link #MIN_TTL} (etcd's shortest lease
 *       with its default election timeout) to {@link #MAX_TTL};</li>
 *   <li>a published <b>value</b> holds at most {@value #MAX_VALUE_BYTES} bytes: far above a
 *       descriptor (some hundred bytes for UCX and NIXL host memory), far below etcd's 1.5 MiB
 *       request limit, so that a listing of many members stays within a client's response limit.
 *       Others may write larger values into the directory; a watch delivers them as they are, and
 *       a reader refuses them before parsing them ({@link MemberEntry#decode}).</li>
 * </ul>
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class DirectoryLimits {

    /** The shortest lease accepted: 2 s, etcd's minimum with its default 1 s election timeout. */
    public static final Duration MIN_TTL = Duration.ofSeconds(2);
    /** The longest lease accepted: one hour. */
    public static final Duration MAX_TTL = Duration.ofHours(1);
    /** The largest value {@link Directory#publish} accepts and {@link MemberEntry#decode} reads, 256 KiB. */
    public static final int MAX_VALUE_BYTES = 256 * 1024;
    /** The longest member id, in characters. */
    public static final int MAX_MEMBER_ID_LENGTH = 128;
    /** The longest prefix, in characters. */
    public static final int MAX_PREFIX_LENGTH = 256;
    /** The longest group name. */
    public static final int MAX_GROUP_LENGTH = 64;

    private DirectoryLimits() {
    }

    /**
     * Checks a lease TTL.
     *
     * @return {@code ttl}
     * @throws IllegalArgumentException naming the TTL if it is not a whole number of seconds from
     *     {@link #MIN_TTL} to {@link #MAX_TTL}
     * @throws NullPointerException if it is null
     */
    public static Duration checkTtl(Duration ttl) {
        Objects.requireNonNull(ttl, "ttl");
        boolean wholeSeconds = ttl.equals(Duration.ofSeconds(ttl.toSeconds()));
        if (ttl.compareTo(MIN_TTL) < 0 || ttl.compareTo(MAX_TTL) > 0 || !wholeSeconds) {
            throw new IllegalArgumentException("TTL " + ttl + " must be a whole number of seconds from "
                    + MIN_TTL.toSeconds() + " s to " + MAX_TTL.toSeconds() + " s");
        }
        return ttl;
    }

    /**
     * Checks a member id.
     *
     * @return {@code memberId}
     * @throws IllegalArgumentException naming the id if it is malformed
     * @throws NullPointerException if it is null
     */
    public static String checkMemberId(String memberId) {
        Objects.requireNonNull(memberId, "memberId");
        if (!isValidMemberId(memberId)) {
            throw new IllegalArgumentException("member id must be 1-" + MAX_MEMBER_ID_LENGTH
                    + " chars of [A-Za-z0-9._:@-]: '" + printable(memberId) + "'");
        }
        return memberId;
    }

    /**
     * Checks a group name (see {@link DirectoryScope}): 1-{@value #MAX_GROUP_LENGTH} characters of
     * {@code [A-Za-z0-9._:@-]}, as a member id.
     *
     * @return {@code group}
     * @throws IllegalArgumentException naming the group if it is malformed
     * @throws NullPointerException if it is null
     */
    public static String checkGroup(String group) {
        Objects.requireNonNull(group, "group");
        if (!isValidGroup(group)) {
            throw new IllegalArgumentException("group must be 1-" + MAX_GROUP_LENGTH
                    + " chars of [A-Za-z0-9._:@-]: '" + printable(group) + "'");
        }
        return group;
    }

    /** Whether {@code group} is a well-formed group name. */
    public static boolean isValidGroup(String group) {
        return !group.isEmpty() && group.length() <= MAX_GROUP_LENGTH && group.chars().allMatch(DirectoryLimits::idChar);
    }

    /** Whether {@code memberId} is a well-formed member id. */
    public static boolean isValidMemberId(String memberId) {
        return !memberId.isEmpty() && memberId.length() <= MAX_MEMBER_ID_LENGTH
                && memberId.chars().allMatch(DirectoryLimits::idChar);
    }

    /**
     * Checks a deployment prefix.
     *
     * @return {@code prefix}
     * @throws IllegalArgumentException naming the prefix if it is malformed
     * @throws NullPointerException if it is null
     */
    public static String checkPrefix(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        String problem = prefixProblem(prefix);
        if (problem != null) {
            throw new IllegalArgumentException("prefix '" + printable(prefix) + "' " + problem);
        }
        return prefix;
    }

    private static @org.jspecify.annotations.Nullable String prefixProblem(String prefix) {
        if (prefix.length() < 2 || prefix.length() > MAX_PREFIX_LENGTH) {
            return "must have 2-" + MAX_PREFIX_LENGTH + " chars";
        }
        if (!prefix.chars().allMatch(c -> c == '/' || idChar(c))) {
            return "must be made of [A-Za-z0-9._:@/-]";
        }
        if (prefix.charAt(0) != '/' || prefix.charAt(prefix.length() - 1) != '/') {
            return "must start and end with '/'";
        }
        for (String segment : prefix.substring(1, prefix.length() - 1).split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                return "must not hold an empty, '.' or '..' segment";
            }
        }
        return null;
    }

    /**
     * Checks a value's size before anything reads it.
     *
     * @return {@code value}
     * @throws IllegalArgumentException if it holds more than {@link #MAX_VALUE_BYTES} bytes
     * @throws NullPointerException if it is null
     */
    public static byte[] checkValue(byte[] value) {
        Objects.requireNonNull(value, "value");
        if (value.length > MAX_VALUE_BYTES) {
            throw new IllegalArgumentException("value of " + value.length + " bytes exceeds the directory's limit of "
                    + MAX_VALUE_BYTES);
        }
        return value;
    }

    /**
     * The member id that {@code key} names under {@code prefix}: the rest of the key after the
     * prefix, when that is a well-formed member id. Empty when the key lies outside the prefix, or
     * below it at another depth ({@code prefix + "a/b"}), or names a malformed id.
     */
    public static Optional<String> memberId(String prefix, String key) {
        if (!key.startsWith(prefix)) {
            return Optional.empty();
        }
        String id = key.substring(prefix.length());
        return isValidMemberId(id) ? Optional.of(id) : Optional.empty();
    }

    private static boolean idChar(int c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_'
                || c == '-' || c == ':' || c == '@';
    }

    /** {@code s}, cut to 80 chars, or a placeholder when it holds non-printable chars. */
    static String printable(String s) {
        String cut = s.length() > 80 ? s.substring(0, 80) + "..." : s;
        return cut.codePoints().allMatch(c -> c >= 0x20 && c < 0x7f) ? cut : "<non-printable>";
    }
}
