package io.blockxfer.cli.internal;

import io.blockxfer.tck.process.ChildJvm;
import java.util.List;

/**
 * The JVM options the launcher ({@code ./blockxfer}) gives the tool's JVM, which the JVMs the tool
 * starts itself get too (the target of {@code bench --processes 2}, the CPU hog of {@code --hog}),
 * so that none of them prints the JDK's warnings for the libraries on the class path:
 * {@code --enable-native-access=ALL-UNNAMED} (the native backends' downcalls; a
 * {@link ChildJvm} has it already) and
 * {@code --sun-misc-unsafe-memory-access=allow} (protobuf's and Netty's {@code sun.misc.Unsafe}
 * memory access, which JDK 24 and later warn about by default). The tests check that the launcher
 * and this list agree.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class LauncherJvmOptions {

    /** The launcher's JVM options, in its order. */
    public static final List<String> ALL = List.of("--enable-native-access=ALL-UNNAMED",
            "--sun-misc-unsafe-memory-access=allow");

    private LauncherJvmOptions() {
    }

    /** {@code child} with the launcher's options its command line lacks so far, after its own. */
    public static ChildJvm.Builder addTo(ChildJvm.Builder child) {
        List<String> has = child.command();
        return child.jvmArgs(ALL.stream().filter(option -> !has.contains(option)).toList());
    }
}
