package io.blockxfer.tck;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Test;

/**
 * Declares a conformance rule: a JUnit test whose id, class and description come from its
 * {@link ConformanceRules} entry. The entry gives the rule its display name
 * ({@code [W2] (required) ...}) and the id of every assertion message, so a rule cannot exist
 * without its entry; the kit's own tests check that no entry lacks its rule.
 *
 * <p><b>Thread safety:</b> an annotation; immutable.
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Test
public @interface RuleTest {

    /** The rule this test checks. */
    ConformanceRules value();
}
