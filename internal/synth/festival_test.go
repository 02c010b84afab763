package synth

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/dialogue"
)

// festivalForTest returns a festival engine of its own, closed when the
// test ends. Without festival the test skips, or fails when
// FLOORBENCH_REQUIRE_TOOLS=1.
func festivalForTest(t *testing.T) *FestivalTTS {
	t.Helper()
	e := enginesForTest(t)[EngineFestival].(*FestivalTTS)
	f := &FestivalTTS{Program: e.Program, TempDir: t.TempDir()}
	t.Cleanup(func() { f.Close() })
	return f
}

// festivalVoiceNamed returns the inventory's festival voice of the given name.
func festivalVoiceNamed(t *testing.T, name string) Voice {
	t.Helper()
	for _, v := range Inventory() {
		if v.Engine == EngineFestival && v.Name == name {
			return v
		}
	}
	t.Fatalf("no festival voice %s in the inventory", name)
	return Voice{}
}

// pidOf is the process id of voice v's festival process, 0 when none runs.
func pidOf(f *FestivalTTS, v Voice) int {
	f.mu.Lock()
	fv := f.procs[v.ID]
	f.mu.Unlock()
	if fv == nil {
		return 0
	}
	fv.mu.Lock()
	defer fv.mu.Unlock()
	if fv.proc == nil {
		return 0
	}
	return fv.proc.cmd.Process.Pid
}

// gone reports whether process pid has ended and been reaped (no zombie
// left): /proc has no entry for it, or one of another, living process.
func gone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && !strings.Contains(string(b), "(festival)")
}

func say(t *testing.T, f *FestivalTTS, text string, v Voice) []float32 {
	t.Helper()
	x, err := f.Synthesize(context.Background(), text, v)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func TestFestivalSpeaksEveryVoiceAt16kHz(t *testing.T) {
	f := festivalForTest(t)
	raw := map[string]int{"cmu_us_slt_arctic_hts": 32000, "kal_diphone": 16000, "ked_diphone": 16000}
	n := 0
	for _, v := range Inventory() {
		if v.Engine != EngineFestival {
			continue
		}
		n++
		x := say(t, f, "Hello there, how are you?", v)
		// The process's own file, still in its folder until the next
		// utterance.
		f.mu.Lock()
		b, err := os.ReadFile(filepath.Join(f.procs[v.ID].proc.dir, "utterance.wav"))
		f.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		src, rate := readPCM16(t, b)
		if rate != raw[v.Name] {
			t.Fatalf("%s: festival wrote %d Hz, want %d Hz", v.ID, rate, raw[v.Name])
		}
		if want := float64(len(src)) * 16000 / float64(rate); math.Abs(float64(len(x))-want) > 2 {
			t.Fatalf("%s: %d samples from %d at %d Hz, want %.1f at 16 kHz", v.ID, len(x), len(src), rate, want)
		}
		if c := correlationAt16k(x, src, rate); c < 0.9 {
			t.Fatalf("%s: correlation %.3f with the %d Hz source read at 16 kHz", v.ID, c, rate)
		}
		if d := float64(len(TrimSpeech(x))) / audio.Rate; d < 0.8 || d > 3 {
			t.Fatalf("%s: %.2f s of speech", v.ID, d)
		}
	}
	if n != len(raw) {
		t.Fatalf("%d festival voices in the inventory, want %d", n, len(raw))
	}
}

// The same text in the same voice gives the same samples whether the
// process is fresh or has spoken other lines, with quotes, backslashes
// and line breaks in the text.
func TestFestivalIsDeterministic(t *testing.T) {
	for _, name := range []string{"cmu_us_slt_arctic_hts", "kal_diphone"} {
		v := festivalVoiceNamed(t, name)
		text := "She said \"no\", \\ then\nleft."
		f := festivalForTest(t)
		first := say(t, f, text, v)
		say(t, f, "Something else entirely, to change what the process last did.", v)
		again := say(t, f, text, v)
		fresh := say(t, festivalForTest(t), text, v)
		if !slices.Equal(first, again) || !slices.Equal(first, fresh) {
			t.Fatalf("%s: %d, %d and %d samples, not all equal", name, len(first), len(again), len(fresh))
		}
		if d := float64(len(TrimSpeech(first))) / audio.Rate; d < 0.8 {
			t.Fatalf("%s: %.2f s of speech for %q", name, d, text)
		}
	}
}

func TestFestivalRestartsAKilledProcess(t *testing.T) {
	f := festivalForTest(t)
	v := festivalVoiceNamed(t, "kal_diphone")
	want := say(t, f, "Are you still there?", v)
	pid := pidOf(f, v)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if got := say(t, f, "Are you still there?", v); !slices.Equal(got, want) {
		t.Fatalf("after the restart %d samples, before %d, not equal", len(got), len(want))
	}
	if now := pidOf(f, v); now == pid || now == 0 {
		t.Fatalf("process %d after killing %d", now, pid)
	}
	if !gone(pid) {
		t.Fatalf("killed process %d was not reaped", pid)
	}
}

// A process that stops answering (frozen with SIGSTOP) is killed at the
// deadline and the utterance is said by a fresh one.
func TestFestivalReplacesAHungProcessAtTheDeadline(t *testing.T) {
	f := festivalForTest(t)
	// The deadline covers a fresh process's voice load too, which took
	// over 5 s at load average 8-17 (under the race detector and without
	// it); 20 s leaves a margin and still ends the frozen process.
	f.Deadline = 20 * time.Second
	v := festivalVoiceNamed(t, "ked_diphone")
	want := say(t, f, "Wait for me.", v)
	pid := pidOf(f, v)
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if got := say(t, f, "Wait for me.", v); !slices.Equal(got, want) {
		t.Fatalf("after the deadline %d samples, before %d, not equal", len(got), len(want))
	}
	if now := pidOf(f, v); now == pid || !gone(pid) {
		t.Fatalf("hung process %d still there (now %d)", pid, now)
	}
}

// When no attempt can finish in time, the error says so.
func TestFestivalGivesUpAfterItsAttempts(t *testing.T) {
	f := festivalForTest(t)
	f.Deadline = time.Millisecond
	_, err := f.Synthesize(context.Background(), "Too late.", festivalVoiceNamed(t, "kal_diphone"))
	if err == nil || !strings.Contains(err.Error(), "3 attempts") || !strings.Contains(err.Error(), "no answer within 1ms") {
		t.Fatalf("err = %v", err)
	}
}

func TestFestivalStopsIdleAndClosedProcesses(t *testing.T) {
	f := festivalForTest(t)
	f.Idle = 100 * time.Millisecond
	idle := festivalVoiceNamed(t, "kal_diphone")
	say(t, f, "Quiet now.", idle)
	pid := pidOf(f, idle)
	for end := time.Now().Add(30 * time.Second); !gone(pid); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("idle process %d still running", pid)
		}
	}
	f.Idle = time.Hour
	var pids []int
	for _, name := range []string{"kal_diphone", "ked_diphone"} {
		v := festivalVoiceNamed(t, name)
		say(t, f, "One more.", v)
		pids = append(pids, pidOf(f, v))
	}
	f.Close()
	for _, pid := range pids {
		if !gone(pid) {
			t.Fatalf("process %d still running after Close", pid)
		}
	}
	if _, err := f.Synthesize(context.Background(), "After.", idle); err == nil {
		t.Fatal("a closed engine spoke")
	}
}

func TestFestivalRefusesAnUnknownVoice(t *testing.T) {
	f := festivalForTest(t)
	for _, v := range []Voice{
		{ID: "festival:nope", Engine: EngineFestival, Name: "nope", Rate: 170},
		{ID: "festival:x", Engine: EngineFestival, Name: "kal_diphone) (quit", Rate: 170},
	} {
		_, err := f.Synthesize(context.Background(), "hi", v)
		if err == nil || !strings.Contains(err.Error(), "festival") || strings.Contains(err.Error(), "attempts") {
			t.Fatalf("%s: err = %v", v.Name, err)
		}
	}
}

// Festival runs with the minimal environment of every speech program.
func TestFestivalDoesNotInheritSecrets(t *testing.T) {
	dir := t.TempDir()
	dump := filepath.Join(dir, "env.txt")
	program := filepath.Join(dir, "fake-festival")
	if err := os.WriteFile(program, []byte("#!/bin/sh\nenv > "+dump+"\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FLOORBENCH_S3_SECRET_KEY", "s3-secret-in-env")
	f := &FestivalTTS{Program: program, TempDir: dir}
	defer f.Close()
	if _, err := f.Synthesize(context.Background(), "hello", Voice{ID: "festival:kal_diphone", Name: "kal_diphone", Rate: 175}); err == nil {
		t.Fatal("the failing program was not reported")
	}
	env, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(env), "-in-env") || !strings.Contains(string(env), "PATH=") {
		t.Errorf("festival's environment:\n%s", env)
	}
}

// Both splits cast festival voices, and a conversation cast with one is
// generated with it speaking.
func TestGeneratorCastsFestivalVoices(t *testing.T) {
	for _, split := range []dialogue.Split{dialogue.Dev, dialogue.Test} {
		if !slices.ContainsFunc(VoicePool(split), func(v Voice) bool { return v.Engine == EngineFestival }) {
			t.Fatalf("no festival voice in the %s pool", split)
		}
	}
	engines := enginesForTest(t)
	defer CloseTTS(engines)
	spec := ConversationSpec{Split: dialogue.Dev, Type: dialogue.Casual, Speakers: 2, Seconds: 20}
	for i := 0; ; i++ {
		spec.ID = "festival-" + strconv.Itoa(i)
		k := slices.IndexFunc(CastVoices(spec, StreamFor(1, spec.ID, StageVoices)).Voices, func(v Voice) bool { return v.Engine == EngineFestival })
		if k < 0 {
			continue
		}
		c, err := Generate(context.Background(), 1, spec, engines)
		if err != nil {
			t.Fatal(err)
		}
		if c.Cast.Voices[k].Engine != EngineFestival || audio.Peak(c.Channels[k]) == 0 {
			t.Fatalf("%s: speaker %d is %s with peak %.3f", spec.ID, k+1, c.Cast.Voices[k].ID, audio.Peak(c.Channels[k]))
		}
		return
	}
}

// Callers at once, in one voice and in two, get what one caller alone gets.
func TestFestivalServesCallersAtOnce(t *testing.T) {
	voices := []Voice{festivalVoiceNamed(t, "kal_diphone"), festivalVoiceNamed(t, "ked_diphone")}
	texts := []string{"First line.", "Second line, a little longer.", "Third."}
	alone := festivalForTest(t)
	want := map[string][]float32{}
	for _, v := range voices {
		for _, text := range texts {
			want[v.ID+text] = say(t, alone, text, v)
		}
	}
	f := festivalForTest(t)
	var wg sync.WaitGroup
	errs := make(chan error, 2*len(voices)*len(texts))
	for range 2 {
		for _, v := range voices {
			for _, text := range texts {
				wg.Go(func() {
					x, err := f.Synthesize(context.Background(), text, v)
					if err == nil && !slices.Equal(x, want[v.ID+text]) {
						err = fmt.Errorf("%s %q: other samples than alone", v.ID, text)
					}
					errs <- err
				})
			}
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}
