package io.blockxfer.tck.holds;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Test;

/**
 * Declares a hold conformance rule: a JUnit test whose id, class and description come from its
 * {@link HoldRules} entry, which gives it its display name and the id of every assertion message.
 *
 * <p><b>Thread safety:</b> an annotation; immutable.
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Test
public @interface HoldRuleTest {

    /** The rule this test checks. */
    HoldRules value();
}
