package io.jkubelet.agent.cli;

import ch.qos.logback.classic.ClassicConstants;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * jkubelet's logging, set up in code (found by logback as a service) rather than read from an XML
 * file: one line per message on stderr, which journald keeps, with the pod's identity from the MDC.
 * Reading XML at start-up loaded about 400 classes (logback's configuration model and the JDK's XML
 * parser) that then stayed loaded for the life of the process.
 *
 * <p>With the system property {@code logback.configurationFile} set (e.g. in {@code
 * JKUBELET_JAVA_OPTS}), logback reads that file instead. {@code -v} raises the levels afterwards.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_NORMAL_PRIORITY)
public final class LogSetup extends ContextAwareBase implements Configurator {
  /** Time, level, thread, the pod (when the MDC names one) and the message. */
  static final String PATTERN =
      "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread]%replace( pod=%X{pod}){' pod=$', ''}"
          + " %msg%n";

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    return configure(context, System.getProperty(ClassicConstants.CONFIG_FILE_PROPERTY));
  }

  /** As {@link #configure(LoggerContext)}, with the property's value given. */
  ExecutionStatus configure(LoggerContext context, String configFile) {
    if (configFile != null) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(PATTERN);
    encoder.start();
    ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
    stderr.setContext(context);
    stderr.setName("STDERR");
    stderr.setTarget("System.err");
    stderr.setEncoder(encoder);
    stderr.start();
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.WARN);
    root.addAppender(stderr);
    context.getLogger("io.jkubelet").setLevel(Level.INFO);
    // At DEBUG, httpclient5 would log every byte it sends to the Docker socket.
    context.getLogger("com.github.dockerjava").setLevel(Level.WARN);
    context.getLogger("org.apache.hc").setLevel(Level.WARN);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }
}
