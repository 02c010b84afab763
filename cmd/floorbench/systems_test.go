package main

import (
	"encoding/json"
	"testing"

	"github.com/floorbench/floorbench/internal/detect"
)

func TestSystemsListsEveryFamilyWithItsParameters(t *testing.T) {
	stdout, stderr, code := run(t, "systems")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, "systems.text", stdout)

	stdout, stderr, code = run(t, "systems", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var listed struct {
		Families []struct {
			Name   string
			Model  bool
			Params []struct {
				Name    string
				Kind    string
				Default any
			}
		}
		Published []struct{ Name, Tables, Status, Runs string }
	}
	if err := json.Unmarshal([]byte(stdout), &listed); err != nil {
		t.Fatalf("systems -o json is not JSON: %v", err)
	}
	fams := listed.Families
	// Every published system is listed with its status, as in the table.
	published := map[string]string{}
	for _, s := range listed.Published {
		published[s.Name] = s.Status
	}
	for _, want := range detect.PublishedSystems() {
		if got := published[want.Name]; got != string(want.Status) || got == "" {
			t.Errorf("systems -o json lists %q with status %q, want %q", want.Name, got, want.Status)
		}
	}
	if len(published) < 19 {
		t.Errorf("systems -o json lists %d published systems, want every system of both papers' tables", len(published))
	}
	defaults := map[string]map[string]any{}
	for _, f := range fams {
		defaults[f.Name] = map[string]any{}
		for _, p := range f.Params {
			defaults[f.Name][p.Name] = p.Default
		}
	}
	for family, want := range map[string]map[string]any{
		"rms":                  {"hangover_s": 0.2, "frame_rate_hz": 100.0},
		"rms-endpointer":       {"hangover_s": 0.2, "eot_ramp_s": 2.0},
		"webrtcvad":            {"mode": 2.0},
		"webrtcvad-endpointer": {"mode": 2.0, "int_ramp_s": 5.0},
		"silero":               {"speech_threshold": 0.5, "int_gate": true},
		"silero-endpointer":    {"eot_min_speech_s": 0.1},
		"onnx":                 {"floor_rule": "gate", "eot_ramp_s": 2.0},
		"external":             {"dir": nil},
	} {
		for name, v := range want {
			got, ok := defaults[family][name]
			if !ok || got != v {
				t.Errorf("%s %s: default %v (listed: %v), want %v", family, name, got, ok, v)
			}
		}
	}
	// A gate reads no silence timeouts, so it lists none.
	for _, family := range []string{"rms", "webrtcvad", "silero"} {
		for _, name := range []string{"eot_min_speech_s", "eot_ramp_s", "int_ramp_s"} {
			if _, ok := defaults[family][name]; ok {
				t.Errorf("%s lists %s, which a gate does not read", family, name)
			}
		}
	}
}
