package io.blockxfer.tck.directory;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Test;

/**
 * Declares a directory conformance rule: a JUnit test whose id, class and description come from
 * its {@link DirectoryRules} entry, which gives it its display name and the id of every assertion
 * message.
 *
 * <p><b>Thread safety:</b> an annotation; immutable.
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Test
public @interface DirectoryRuleTest {

    /** The rule this test checks. */
    DirectoryRules value();
}
