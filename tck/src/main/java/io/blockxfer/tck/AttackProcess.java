package io.blockxfer.tck;

import io.blockxfer.tck.process.ChildJvm;
import io.blockxfer.transport.DataTransport;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * The program the descriptor rules run in a child JVM: recreates the suite's harness from its
 * recipe, opens an initiator and two targets, offers the rule's bad descriptors, and writes one
 * line per step on stdout ({@code CASES n}, {@code TRY i label}, {@code OUT ...}, {@code END}). If
 * the backend crashes the JVM, the parent sees which case it was trying.
 *
 * <p>Arguments: the rule id ({@code M2}, {@code M3} or {@code M4}), then the harness recipe's items.
 *
 * <p><b>Thread safety:</b> a program; single-threaded.
 */
final class AttackProcess {

    private AttackProcess() {
    }

    public static void main(String[] args) {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err); // stdout is the protocol
        ChildJvm.exitWhenParentDies();
        ConformanceRules rule = ConformanceRules.valueOf(args[0]);
        List<String> recipe = Arrays.asList(args).subList(1, args.length);
        InJvmHarness harness = InJvmHarness.fromRecipe(recipe);
        try (Fixture fx = new Fixture(harness, TckEnvironment.fromSystem(), rule)) {
            DescriptorRules.prepare(fx);
            DataTransport t = fx.initiator();
            TargetPeer target = fx.target();
            TargetPeer other = fx.target();
            String unfit = DescriptorRules.unfit(rule, target.descriptor());
            if (unfit != null) {
                out.println("FAIL " + unfit);
                System.exit(0);
            }
            List<DescriptorAttacks.Case> cases = DescriptorRules.cases(rule, target.descriptor(), other.descriptor());
            out.println("CASES " + cases.size());
            DescriptorAttacks.run(t, cases, target.descriptor(), out::println, o -> out.println(o.line()));
            out.println("END");
        } catch (RuntimeException | Error e) {
            out.println("ERR " + DescriptorAttacks.oneLine(e.toString()));
            e.printStackTrace();
            System.exit(2);
        }
        System.exit(0);
    }
}
