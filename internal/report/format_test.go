package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/score"
)

func TestFixedNeverPrintsNegativeZero(t *testing.T) {
	for _, c := range []struct {
		v        float64
		decimals int
		fixed    string
		signed   string
	}{
		{math.Copysign(0, -1), 0, "0", "0"},
		{-0.4, 0, "0", "0"},
		{-0.0004, 3, "0.000", "0.000"},
		{-0.00004, 4, "0.0000", "0.0000"},
		{0, 3, "0.000", "0.000"},
		{0.0004, 3, "0.000", "0.000"},
		{-0.6, 0, "-1", "-1"},
		{-0.0431, 3, "-0.043", "-0.043"},
		{0.068, 3, "0.068", "+0.068"},
		{2044.2, 0, "2044", "+2044"},
		{math.NaN(), 3, "—", "—"},
		{math.Inf(-1), 3, "—", "—"},
	} {
		if got := Fixed(c.v, c.decimals); got != c.fixed {
			t.Errorf("Fixed(%v, %d) = %q, want %q", c.v, c.decimals, got, c.fixed)
		}
		if got := Signed(c.v, c.decimals); got != c.signed {
			t.Errorf("Signed(%v, %d) = %q, want %q", c.v, c.decimals, got, c.signed)
		}
	}
	if got := Latencies(score.Latency{P10: -0.3, P50: -0.2, P90: 12}); got != "0/0/12" {
		t.Errorf("Latencies = %q, want 0/0/12", got)
	}
	if got, _ := json.Marshal(Num(math.Copysign(0, -1))); string(got) != "0" {
		t.Errorf("Num(-0) marshals to %s, want 0", got)
	}
}

func TestPValue(t *testing.T) {
	for _, c := range []struct {
		p    float64
		want string
	}{
		{0, "< 0.0001"},
		{0.00002, "< 0.0001"},
		{0.0000999, "< 0.0001"},
		{0.0001, "0.0001"},
		{0.008, "0.0080"},
		{1, "1.0000"},
		{math.NaN(), "—"},
	} {
		if got := PValue(c.p); got != c.want {
			t.Errorf("PValue(%v) = %q, want %q", c.p, got, c.want)
		}
	}
}

// A paired comparison with a p-value below 1e-4 and a difference that
// rounds to zero from below prints "< 0.0001" and "0.000" in every table
// format, while its JSON keeps the p-value and the difference exactly.
func TestPairedTablePValueAndZero(t *testing.T) {
	lb := TaskLeaderboard{Task: floor.TaskEOT}
	lb.AddPaired(score.PairedComparison{A: "a", B: "b",
		Recall: score.Difference{Delta: 0.25, CI: score.Interval{Lo: 0.2, Hi: 0.3}, P: 0.00002},
		FPRate: score.Difference{Delta: -0.0002, CI: score.Interval{Lo: -0.0004, Hi: 0.0001}, P: 0.5}}, nil)
	for format, below := range map[string]string{"text": "< 0.0001", "md": "< 0.0001", "latex": "$<$ 0.0001"} {
		var b bytes.Buffer
		if err := lb.PairedTable().Write(&b, format); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if !strings.Contains(out, below) || strings.Contains(out, "0.0000") {
			t.Errorf("%s: want p as < 0.0001, not 0.0000:\n%s", format, out)
		}
		if strings.Contains(out, "-0.000") || !strings.Contains(out, "[0.000, 0.000]") {
			t.Errorf("%s: want the near-zero difference as 0.000 without sign:\n%s", format, out)
		}
	}
	data, err := json.Marshal(lb.Paired)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"p":2e-05`, `"delta":-0.0002`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("JSON %s lacks %s", data, want)
		}
	}
}
