// Package generate writes generated corpora: it runs the MPTB generator
// (internal/synth) over a preset's conversations and writes each as a
// conversation of the native format (internal/corpus), the manifest last.
// It is the only package that joins the two, so a package that reads
// corpora (detectors, scoring, the GPU worker) does not link the generator.
package generate
