package interop

import "context"

// JavaFile is one more source file of a Java program: its top-level class's name and its text.
type JavaFile struct {
	Class string
	Text  []byte
}

// CompileJavaFiles is CompileJava for a program of several source files compiled together:
// class's own source, then others (the benchmark's Curator peer keeps each group of scenarios in
// its own file). The cache key covers every file.
func CompileJavaFiles(ctx context.Context, class string, source []byte, classpath string, others ...JavaFile) (string, error) {
	srcs := []javaSource{{class, source}}
	for _, o := range others {
		srcs = append(srcs, javaSource{o.Class, o.Text})
	}
	return compileJava(ctx, class, classpath, srcs...)
}
