package main

import (
	"strconv"
	"strings"
	"testing"
)

// gold turnbench refuses annotations that would give excluded intervals
// like [-5, 2] or [30, 20], and gold whose anchor no prediction inside the
// conversation can reach, with one line and nothing on stdout.
func TestGoldTurnBenchRejectsBrokenSegments(t *testing.T) {
	dir := t.TempDir()
	annotations := func(duration, c string) string {
		return `{"conversations": {"c1": {"duration_s": ` + duration + `, "annotations": {"speaker_1": {"a": [[1, 4, "Normal Turn"]], "b": [[1.1, 4, "Normal Turn"]], "c": [` + c + `]}, "speaker_2": {"a": [], "b": [], "c": []}}}}}`
	}
	cases := []struct{ name, annotations, want string }{
		{"negative start", annotations("20", `[-5, 2, "Laughter"]`),
			`A.json: conversation "c1": speaker_1 annotator c segment 0: start -5 is outside [-3, 23] (3 s around [0, duration_s 20])`},
		{"crossed", annotations("40", `[30, 20, "Laughter"]`),
			`A.json: conversation "c1": speaker_1 annotator c segment 0: end 20 is more than 3 s before start 30`},
		{"anchor past the end", annotations("3.5", `[1, 4, "Normal Turn"]`),
			`A.json: the gold derived from it: conversation "c1": eot_positive_events[0] speaker 1: time_s 4 is outside [0, 3.75] (duration_s 3.5 + tau_pre_s 0.25)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, dir, "A.json", c.annotations)
			stdout, stderr, code := run(t, "gold", "turnbench", "--annotations", path, "-o", "json")
			want := "floorbench: " + strings.Replace(c.want, "A.json", path, 1) + "\n"
			if code == 0 || stdout != "" || stderr != want {
				t.Errorf("exit %d, stdout %q\nstderr %q\nwant   %q", code, stdout, stderr, want)
			}
		})
	}
	path := writeFile(t, dir, "A.json", annotations("20", `[1, 4, "Normal Turn"], [-0.1875, 0.375, "Laughter"], [9.7, 8.6, "Laughter"]`))
	if stdout, stderr, code := run(t, "gold", "turnbench", "--annotations", path, "-o", "json"); code != 0 || !strings.Contains(stdout, `"int_excluded": [{"speaker": 1, "start": -0.1875, "end": 0.375}, {"speaker": 1, "start": 9.7, "end": 8.6}]`) {
		t.Errorf("deviations as small as the reference's are kept: exit %d\n%s%s", code, stdout, stderr)
	}
}

// Gold and submissions that cannot be true are refused with one line: a
// speaker the conversation does not have (counted from a stated source),
// and in floorbench's own gold (which states its speakers) a span that
// ends before it starts.
func TestImpossibleGoldAndSubmissionsAreRefused(t *testing.T) {
	dir := t.TempDir()
	gold := writeFile(t, dir, "gold.json", cliGold)
	entry := func(id string, speakers int) string {
		s := `{"conversation_id": "` + id + `"`
		for k := 1; k <= speakers; k++ {
			s += `, "speaker_` + strconv.Itoa(k) + `": {"eot": [], "interruption": []}`
		}
		return s + "}"
	}
	extra := writeFile(t, dir, "p3.json", `{"schema_version": 1, "predictions": [`+entry("c1", 3)+`, `+entry("c2", 2)+`]}`)
	stdout, stderr, code := run(t, "score", "--gold", gold, "--predictions", extra)
	oneErrorLine(t, stdout, stderr, code, extra+`: conversation "c1": speaker_3 is not in the gold (the gold states no count: TurnBench's two)`)

	stated := writeFile(t, dir, "stated.json", strings.Replace(strings.Replace(cliGold, `"duration_s": 30.0`, `"duration_s": 30.0, "speakers": 2`, 1),
		`{"speaker": 2, "start": 8.0, "end": 9.0}`, `{"speaker": 1, "start": 9.0, "end": 4.0}`, 1))
	pred := writeFile(t, dir, "p.json", `{"schema_version": 1, "predictions": [`+entry("c1", 2)+`, `+entry("c2", 2)+`]}`)
	stdout, stderr, code = run(t, "score", "--gold", stated, "--predictions", pred)
	oneErrorLine(t, stdout, stderr, code, stated+`: conversation "c1": eot_negative_spans[0] speaker 1: end 4 is not after start 9`)
}
