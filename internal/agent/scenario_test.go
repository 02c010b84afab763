package agent

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/synth"
	"github.com/floorbench/floorbench/internal/testenv"
)

// engines returns the real TTS engines, skipping the test without them
// (failing under FLOORBENCH_REQUIRE_TOOLS=1, as scripts/test.sh sets).
func engines(t testing.TB) map[string]synth.TTS {
	t.Helper()
	e, err := synth.NewTTS(t.TempDir())
	if err != nil {
		if testenv.Required() {
			t.Fatalf("%v", err)
		}
		t.Skipf("%v; skipping (set FLOORBENCH_REQUIRE_TOOLS=1 to fail instead)", err)
	}
	return e
}

var (
	tinyOnce sync.Once
	tinyDir  string
	tinyErr  error
)

// tinySet returns a tiny-agent set (seed 7, two jobs) generated once for
// every test of the package. Tests must not modify it.
func tinySet(t *testing.T) string {
	t.Helper()
	e := engines(t)
	tinyOnce.Do(func() {
		root, err := os.MkdirTemp("", "floorbench-agent-test-")
		if err != nil {
			tinyErr = err
			return
		}
		tinyDir = filepath.Join(root, "tiny-agent")
		_, tinyErr = Generate(context.Background(), GenerateOptions{Preset: "tiny-agent", Seed: 7, Out: tinyDir, Jobs: 2, Engines: e})
	})
	if tinyErr != nil {
		t.Fatal(tinyErr)
	}
	return tinyDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if tinyDir != "" {
		os.RemoveAll(filepath.Dir(tinyDir))
	}
	os.Exit(code)
}

func TestTinyAgentIsBalanced(t *testing.T) {
	m, err := ReadSet(tinySet(t))
	if err != nil {
		t.Fatal(err)
	}
	perCondition, perSpeakers := map[Condition]int{}, map[int]int{}
	for _, s := range m.Scenarios {
		perCondition[s.Condition]++
		perSpeakers[s.Speakers]++
	}
	for _, c := range MPTBConditions {
		if perCondition[c] != 2 {
			t.Errorf("%s: %d scenarios, want 2", c, perCondition[c])
		}
	}
	for _, c := range SceneConditions {
		if perCondition[c] != 1 {
			t.Errorf("%s: %d scenarios, want 1", c, perCondition[c])
		}
	}
	// MPTB's eight: two of each speaker count; the six scenes add 2, 3,
	// 4, 5, 2 and 3 speakers (side talk's three speakers among them).
	for n, want := range map[int]int{2: 4, 3: 4, 4: 3, 5: 3} {
		if perSpeakers[n] != want {
			t.Errorf("%d speakers: %d scenarios, want %d", n, perSpeakers[n], want)
		}
	}
	if m.Preset != "tiny-agent" || m.Seed != 7 || m.CodeVersion != ScenarioCodeVersion() {
		t.Errorf("set header %q %d %q", m.Preset, m.Seed, m.CodeVersion)
	}
}

func TestMPTBAgentPresetIsBalanced(t *testing.T) {
	p, err := ScenarioPresetByName("mptb-agent")
	if err != nil {
		t.Fatal(err)
	}
	cells := map[Condition]map[int]int{}
	perSpeakers := map[int]int{}
	ids := map[string]bool{}
	for _, d := range p.Designs {
		if cells[d.Condition] == nil {
			cells[d.Condition] = map[int]int{}
		}
		cells[d.Condition][d.Speakers]++
		perSpeakers[d.Speakers]++
		ids[d.ID] = true
	}
	want := 120 + sceneScenarios*len(SceneConditions)
	if len(p.Designs) != want || len(ids) != want {
		t.Fatalf("%d designs, %d distinct ids; want %d", len(p.Designs), len(ids), want)
	}
	if !slices.Equal(p.Designs[:120], mptbOnly(p.Designs)) {
		t.Error("the MPTB conditions' designs are not the preset's first 120")
	}
	for _, c := range SceneConditions {
		counts := sceneSpeakers(c)
		for _, n := range counts {
			if k := cells[c][n]; k != sceneScenarios/len(counts) {
				t.Errorf("%s with %d speakers: %d scenarios, want %d", c, n, k, sceneScenarios/len(counts))
			}
		}
	}
	for _, c := range MPTBConditions {
		total := 0
		for n := 2; n <= 5; n++ {
			if k := cells[c][n]; k != 7 && k != 8 {
				t.Errorf("%s with %d speakers: %d scenarios, want 7 or 8", c, n, k)
			}
			total += cells[c][n]
		}
		if total != 30 {
			t.Errorf("%s: %d scenarios, want 30", c, total)
		}
	}
	// 30 of MPTB's, 3 of each of five scenes, and side talk's 4 from 3
	// speakers on.
	for n := 2; n <= 5; n++ {
		want := 30 + 15
		if n > 2 {
			want += 4
		}
		if perSpeakers[n] != want {
			t.Errorf("%d speakers: %d scenarios, want %d", n, perSpeakers[n], want)
		}
	}
}

func mptbOnly(ds []Design) []Design {
	var out []Design
	for _, d := range ds {
		if d.Condition.MPTB() {
			out = append(out, d)
		}
	}
	return out
}

// speechRMS is the RMS of x between two times, in dBFS.
func speechRMS(x []float32, from, to float64) float64 {
	a, b := int(from*SampleRate), min(len(x), int(to*SampleRate))
	return audio.DB(audio.RMS(x[a:b]))
}

// noiseFloor is the 10th percentile of the levels of x's 250 ms windows,
// in dBFS: its noise, even for babble, whose level swings.
func noiseFloor(x []float32) float64 {
	var levels []float64
	for a := 0.0; a+0.25 <= float64(len(x))/SampleRate; a += 0.25 {
		levels = append(levels, speechRMS(x, a, a+0.25))
	}
	slices.Sort(levels)
	return levels[len(levels)/10]
}

// participantsMix is the mix without a background: the participants'
// channels summed, at the scenario's mix gain.
func participantsMix(a ScenarioAudio, gain float64) []float32 {
	out := make([]float32, len(a.Mix))
	for _, ch := range a.Channels {
		audio.AddAt(out, ch, 0, gain)
	}
	return out
}

// The cue is where the audio says it is: the addressing speaker talks up
// to it and the room is quiet after it (a turn end) or until the
// resumption (a hold); a STOP scenario carries a stimulus of its kind.
func TestTinyAgentCuesMatchTheAudio(t *testing.T) {
	dir := tinySet(t)
	m, err := ReadSet(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range m.Scenarios {
		a, err := LoadAudio(dir, &s)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(s.Prompt, s.AgentName+", ") && !strings.Contains(s.Prompt, " "+s.AgentName+", ") {
			t.Errorf("%s: prompt %q does not address %s", s.ID, s.Prompt, s.AgentName)
		}
		if slices.ContainsFunc(s.Participants, func(p Participant) bool { return p.Name == s.AgentName || p.Speaker == s.AgentSeat }) {
			t.Errorf("%s: the agent %s (seat %d) is among the participants %v", s.ID, s.AgentName, s.AgentSeat, s.Participants)
		}
		quietFrom, quietUntil := s.Cue, s.Cue+2
		if s.Condition.Hold() {
			quietUntil = s.Resume
		}
		if s.Condition == StartDuringFillerHold {
			// the filler is said in the first part of the hold
			quietFrom = s.Resume - holdMin
		}
		// Before the cue the addressing speaker talks (15 dB over the
		// floor: a sentence's last 250 ms can sit a few dB under its
		// speaker's level); after it every channel is down to its noise:
		// within 12 dB of its floor, where speech is at least 20 dB above
		// it (the SNRs are 20 to 38 dB).
		talking := false
		for i, ch := range a.Channels {
			floor := noiseFloor(ch)
			talking = talking || speechRMS(ch, s.Cue-0.25, s.Cue) > floor+15
			for x := quietFrom + 0.01; x+0.25 < quietUntil; x += 0.25 {
				if l := speechRMS(ch, x, x+0.25); l > floor+12 {
					t.Errorf("%s: speaker %d at %.1f dBFS %.2f s after the cue (noise floor %.1f)", s.ID, s.Participants[i].Speaker, l, x-s.Cue, floor)
					break
				}
			}
		}
		if !talking {
			t.Errorf("%s: nobody talks in the 250 ms before the cue", s.ID)
		}
		if s.Condition.Hold() {
			// The lowest SNR is 20 dB on the speaker's own channel; the
			// mix adds the other channels' noise (6 dB more with four),
			// and the first 250 ms of speech can sit a few dB under its
			// speaker's level. 15 dB over the mix's floor is speech,
			// never noise. (The participants' mix: a radio under it
			// raises the mix's floor.)
			bed := participantsMix(a, s.MixGain)
			if resumed, floor := speechRMS(bed, s.Resume, s.Resume+0.25), noiseFloor(bed); resumed < floor+15 {
				t.Errorf("%s: %.1f dBFS after resume_s, noise floor %.1f", s.ID, resumed, floor)
			}
			lo, hi := holdMin, holdMax
			if s.Condition == StartDuringFillerHold {
				lo, hi = holdMin+fillerGapMin, holdMax+fillerGapMax+1
			}
			if s.Resume-s.Cue < lo-1e-9 || s.Resume-s.Cue > hi+1e-9 {
				t.Errorf("%s: hold of %.3f s outside [%g, %g]", s.ID, s.Resume-s.Cue, lo, hi)
			}
		}
		if b := s.Background; b != nil {
			// The radio is 10 dB under the speech, which is 20 dB or more
			// over the noise: it is heard through the pause, over the
			// participants' quiet channels.
			if l, quiet := speechRMS(a.Mix, s.Cue, s.Resume), speechRMS(participantsMix(a, s.MixGain), s.Cue, s.Resume); l < quiet+6 {
				t.Errorf("%s: %.1f dBFS in the pause under a radio, %.1f without it", s.ID, l, quiet)
			}
			if b.Start > s.Cue-backgroundLead+1e-3 || b.Start+float64(b.Samples)/SampleRate < s.Resume {
				t.Errorf("%s: the radio plays from %.2f s for %d samples, the pause is [%.2f, %.2f]", s.ID, b.Start, b.Samples, s.Cue, s.Resume)
			}
		}
		if s.Condition.Stop() {
			st := s.Stimulus
			if st.Delay < stimulusDelayMin || st.Delay > stimulusDelayMax || len(a.Stimulus) != st.Samples {
				t.Errorf("%s: stimulus delay %g s, %d samples (%d in the file)", s.ID, st.Delay, st.Samples, len(a.Stimulus))
			}
			short := st.Kind == Backchannel || st.Kind == Vocalisation || st.Kind == NoiseBurst
			if d := st.Duration(); short != (d < 1.2) {
				t.Errorf("%s: %s stimulus %q lasts %.2f s", s.ID, st.Kind, st.Text, d)
			}
		}
	}
}

// The same preset and seed give the same bytes whatever the parallelism.
func TestScenariosAreByteIdentical(t *testing.T) {
	first := tinySet(t)
	second := filepath.Join(t.TempDir(), "again")
	if _, err := Generate(context.Background(), GenerateOptions{Preset: "tiny-agent", Seed: 7, Out: second, Jobs: 3, Engines: engines(t)}); err != nil {
		t.Fatal(err)
	}
	a, b := folderBytes(t, first), folderBytes(t, second)
	if len(a) != len(b) {
		t.Fatalf("%d files against %d", len(a), len(b))
	}
	for name, data := range a {
		if !bytes.Equal(data, b[name]) {
			t.Errorf("%s differs", name)
		}
	}
}

// folderBytes maps every file under dir (by relative path) to its bytes.
func folderBytes(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out[rel], err = os.ReadFile(path)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A failing speech program leaves no output folder and no partial one.
func TestGenerateLeavesNothingOnError(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "set")
	broken := map[string]synth.TTS{
		synth.EngineEspeak: &synth.ProgramTTS{Engine: synth.EngineEspeak, Program: "/bin/false", TempDir: t.TempDir()},
		synth.EngineFlite:  &synth.ProgramTTS{Engine: synth.EngineFlite, Program: "/bin/false", TempDir: t.TempDir()},
	}
	_, err := Generate(context.Background(), GenerateOptions{Preset: "tiny-agent", Seed: 1, Out: out, Jobs: 2, Engines: broken})
	if err == nil {
		t.Fatal("generation with a failing speech program succeeded")
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 0 {
		t.Fatalf("left %v behind after %v", entries, err)
	}
	if err := os.WriteFile(filepath.Join(parent, "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Generate(context.Background(), GenerateOptions{Preset: "tiny-agent", Seed: 1, Out: parent, Engines: broken})
	if err == nil || !strings.Contains(err.Error(), "is not empty") {
		t.Fatalf("a non-empty output folder: err = %v", err)
	}
}

// The VAD's defaults on real synthetic speech: a stimulus clip is speech
// trimmed to its first and last sounding 2 ms (synth.TrimSpeech) and
// levelled to -24 to -18 dBFS, as an agent's TTS output is; the VAD finds
// it from its first to its last 10 ms frame, give or take a frame.
func TestVADFindsRenderedSpeech(t *testing.T) {
	dir := tinySet(t)
	m, err := ReadSet(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range m.Scenarios {
		// Speech only: a cough's or a bang's decaying tail falls under the
		// off level before its last sample, as a listener would hear it.
		if s.Stimulus == nil || s.Stimulus.Kind == Vocalisation || s.Stimulus.Kind == NoiseBurst {
			continue
		}
		a, err := LoadAudio(dir, &s)
		if err != nil {
			t.Fatal(err)
		}
		segs := DefaultVAD().Segments(a.Stimulus)
		d := s.Stimulus.Duration()
		if len(segs) == 0 || segs[0].Onset > 0.02 || segs[len(segs)-1].Offset < d-0.03 {
			t.Errorf("%s: %s %q (%.3f s): segments %v", s.ID, s.Stimulus.Kind, s.Stimulus.Text, d, segs)
		}
	}
}
