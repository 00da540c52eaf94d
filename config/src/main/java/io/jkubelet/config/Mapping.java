package io.jkubelet.config;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A settings record whose settings are one mapping of the file, named once here rather than on each
 * {@link Field}: a component's file name is {@code <mapping>.<component>} and its flag {@code
 * --<mapping>-<component>} in kebab case ({@link EventExport}'s {@code url} is {@code
 * eventExport.url} and {@code --event-export-url}). A {@link Field} that says otherwise wins.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface Mapping {
  /** The mapping's name in the file, e.g. {@code eventExport}. */
  String value();
}
