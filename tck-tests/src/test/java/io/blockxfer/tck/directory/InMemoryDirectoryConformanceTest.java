package io.blockxfer.tck.directory;

/** The in-memory directory certified by the directory conformance kit. */
class InMemoryDirectoryConformanceTest extends DirectoryConformanceSuite {
    @Override
    protected DirectoryDeployment deployment() {
        return new InMemoryDeployment();
    }
}
