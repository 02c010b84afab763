// Command corpussubset writes a native corpus holding a fraction of
// another: in every cell of the design (split, speaker count, interaction
// type), the first of each N conversations in manifest order, so the subset
// keeps the corpus's composition. Files are hard-linked, not copied. It is
// what scripts/labscale.sh's growth table runs on.
//
//	go run ./scripts/corpussubset -in DIR -out DIR -every N
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/limits"
)

func main() {
	in := flag.String("in", "", "native corpus folder")
	out := flag.String("out", "", "folder to write the subset to (must not exist)")
	every := flag.Int("every", 2, "keep one conversation in every N of each design cell")
	flag.Parse()
	if err := subset(*in, *out, *every); err != nil {
		fmt.Fprintln(os.Stderr, "corpussubset:", err)
		os.Exit(1)
	}
}

func subset(in, out string, every int) error {
	if in == "" || out == "" || every < 1 {
		return fmt.Errorf("-in, -out and -every >= 1 are required")
	}
	m, err := corpus.ReadManifest(in, limits.Default())
	if err != nil {
		return err
	}
	if err := os.Mkdir(out, 0o755); err != nil {
		return err
	}
	type cell struct {
		split, kind string
		speakers    int
	}
	seen := map[cell]int{}
	kept := m.Conversations[:0:0]
	for _, c := range m.Conversations {
		k := cell{c.Split, c.InteractionType, c.Speakers}
		n := seen[k]
		seen[k]++
		if n%every != 0 {
			continue
		}
		kept = append(kept, c)
		if err := os.Mkdir(filepath.Join(out, c.ID), 0o755); err != nil {
			return err
		}
		for name := range c.Files {
			if err := os.Link(filepath.Join(in, c.ID, name), filepath.Join(out, c.ID, name)); err != nil {
				return err
			}
		}
	}
	m.Conversations = kept
	return corpus.WriteManifest(out, m)
}
