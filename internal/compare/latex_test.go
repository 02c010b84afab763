package compare

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/testenv"
)

// The table of a verdict whose p-value is below 0.0001 (Δ, →) compiles
// with plain pdflatex when written as LaTeX (setup component latex).
func TestVerdictTableCompiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	good, dropped := simulated(rng, 40, 10, 30, 0.8, 0.05), simulated(rng, 40, 10, 30, 0.3, 0.05)
	old := bundleOf("o", map[string]evaluate.TaskResult{"a": pairedTask(good, true)})
	cur := bundleOf("n", map[string]evaluate.TaskResult{"a": pairedTask(dropped, true)})
	var body strings.Builder
	if err := Paired(old, cur, PairedOptions{Tolerance: DefaultTolerance}).Table().LaTeX(&body); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`$<$ 0.0001`, `$\Delta$`, `$\rightarrow$`} {
		if !strings.Contains(body.String(), want) {
			t.Errorf("the table lacks %s:\n%s", want, body.String())
		}
	}
	testenv.CompileLaTeX(t, body.String())
}
