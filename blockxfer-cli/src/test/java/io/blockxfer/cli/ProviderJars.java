package io.blockxfer.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.blockxfer.transport.spi.TransportProvider;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;

/** Compiles a provider class into a jar with its service registration, for {@code --classpath}. */
final class ProviderJars {

    private ProviderJars() {
    }

    /** A jar in {@code dir} holding {@code example.<className>} compiled from {@code source}. */
    static Path jar(Path dir, String className, String source) throws Exception {
        Path src = dir.resolve("src/example/" + className + ".java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, source);
        Path classes = dir.resolve("classes");
        String classPath = String.join(File.pathSeparator, location(TransportProvider.class),
                location(Class.forName("io.blockxfer.loopback.LoopbackProvider")));
        int rc = ToolProvider.findFirst("javac").orElseThrow().run(System.out, System.err, "-d", classes.toString(),
                "-cp", classPath, "-proc:none", src.toString());
        assertEquals(0, rc, "compiling " + className);
        Path jar = dir.resolve(className + ".jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
                Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace(File.separatorChar, '/')));
                Files.copy(f, out);
                out.closeEntry();
            }
            out.putNextEntry(new JarEntry("META-INF/services/" + TransportProvider.class.getName()));
            out.write(("example." + className + "\n").getBytes(StandardCharsets.UTF_8));
            out.closeEntry();
        }
        return jar;
    }

    private static String location(Class<?> c) throws Exception {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
