package io.jkubelet.config;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A record component that may be null: {@link Records#requireNonNull} leaves it out, so a record's
 * compact constructor checks all its other references in one call, and {@link Settings#build}
 * passes a null on to a settings record.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.RECORD_COMPONENT)
public @interface Nullable {}
