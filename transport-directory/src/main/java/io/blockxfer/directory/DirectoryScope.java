package io.blockxfer.directory;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Which keys of a deployment a {@linkplain Directory#watch(DirectoryScope, DirectoryListener) watch}
 * follows: one contiguous range of keys under the prefix, so that an implementation maps it onto one
 * range watch of its directory (etcd: a key and a range end) and never filters the whole prefix.
 *
 * <p><b>The key layout.</b> A member's entry lives at {@code prefix + memberId}. A member that
 * names a group ({@link MemberEntry#group()}) is also found at its <em>group key</em>,
 * {@code prefix + "~group/" + group + "/" + memberId}, written with the same value under the same
 * lease ({@link Directory#publish(String, String, java.util.function.LongFunction, java.time.Duration,
 * PublicationListener) publish} with a group). {@code '~'} sorts after every character of a member
 * id, so the member keys and the group keys are two disjoint ranges:
 * <ul>
 *   <li>{@link #members()}: every member key, {@code [prefix, prefix + "~")}: what an eager
 *       membership follows; group keys are not in it, so a grouped member is delivered once;</li>
 *   <li>{@link #member(String)}: one member's key: what an on-demand resolution reads and then
 *       follows;</li>
 *   <li>{@link #group(String)}: every group key of one group, {@code prefix + "~group/" + group + "/"}
 *       and below: what a membership that follows a group watches;</li>
 *   <li>{@link #groupMember(String, String)}: one member's group key.</li>
 * </ul>
 *
 * <p><b>Thread safety:</b> immutable.
 */
public final class DirectoryScope {

    /** What comes after the prefix in every group key. */
    public static final String GROUP_SEGMENT = "~group/";

    private static final DirectoryScope MEMBERS = new DirectoryScope("", "~", "every member");

    private final String start;
    private final @Nullable String end; // null: exactly the key "start"
    private final String description;

    private DirectoryScope(String start, @Nullable String end, String description) {
        this.start = start;
        this.end = end;
        this.description = description;
    }

    /** Every member key (not the group keys): what {@link Directory#watch(DirectoryListener)} follows. */
    public static DirectoryScope members() {
        return MEMBERS;
    }

    /**
     * The key of one member.
     *
     * @throws IllegalArgumentException if the member id is malformed
     */
    public static DirectoryScope member(String memberId) {
        DirectoryLimits.checkMemberId(memberId);
        return new DirectoryScope(memberId, null, "member '" + memberId + "'");
    }

    /**
     * Every group key of {@code group}.
     *
     * @throws IllegalArgumentException if the group is malformed (see {@link DirectoryLimits#checkGroup})
     */
    public static DirectoryScope group(String group) {
        DirectoryLimits.checkGroup(group);
        String start = GROUP_SEGMENT + group + "/";
        return new DirectoryScope(start, start.substring(0, start.length() - 1) + "0", "group '" + group + "'");
    }

    /**
     * The group key of one member.
     *
     * @throws IllegalArgumentException if the group or the member id is malformed
     */
    public static DirectoryScope groupMember(String group, String memberId) {
        return new DirectoryScope(groupKey("", group, memberId), null, "member '" + memberId + "' of group '"
                + group + "'");
    }

    /**
     * The group key of {@code memberId} in {@code group} under {@code prefix}.
     *
     * @throws IllegalArgumentException if the group or the member id is malformed
     */
    public static String groupKey(String prefix, String group, String memberId) {
        return prefix + GROUP_SEGMENT + DirectoryLimits.checkGroup(group) + "/"
                + DirectoryLimits.checkMemberId(memberId);
    }

    /** The first key of the range under {@code prefix}. */
    public String start(String prefix) {
        return prefix + start;
    }

    /**
     * The first key after the range under {@code prefix} (exclusive; etcd's range end): for one
     * key, that key followed by a zero byte.
     */
    public String end(String prefix) {
        return end == null ? prefix + start + '\0' : prefix + end;
    }

    /** Whether the scope is one key. */
    public boolean isSingleKey() {
        return end == null;
    }

    /** Whether {@code key} lies in this scope under {@code prefix}. */
    public boolean contains(String prefix, String key) {
        if (!key.startsWith(prefix)) {
            return false;
        }
        String rest = key.substring(prefix.length());
        return end == null ? rest.equals(start) : rest.compareTo(start) >= 0 && rest.compareTo(end) < 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DirectoryScope s && start.equals(s.start) && Objects.equals(end, s.end);
    }

    @Override
    public int hashCode() {
        return Objects.hash(start, end);
    }

    /** What it covers, for messages: {@code "member 'b'"}, {@code "group 'decode'"}. */
    @Override
    public String toString() {
        return description;
    }
}
