package synth

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// EngineFestival names festival's voices.
const EngineFestival = "festival"

// Festival's limits: how long one utterance (or loading a voice) may take
// before its process is taken for hung, how many times an utterance is
// tried on a fresh process after a crash or hang, and how long an unused
// process is kept.
const (
	FestivalDeadline = 60 * time.Second
	festivalAttempts = 3
	FestivalIdle     = 30 * time.Second
)

// FestivalTTS synthesises with festival run as a program (festival is
// X11-licensed, but is run like espeak-ng and flite). Loading a voice takes
// most of a second, so it keeps one `festival --pipe` process per voice and
// feeds it one Scheme form per utterance. A process that crashes or
// misses its deadline is killed and the utterance is retried on a fresh
// one; a process unused for Idle is stopped, and Close stops them all.
type FestivalTTS struct {
	Program  string        // path or name on $PATH
	TempDir  string        // where processes write their WAV ("" = os.TempDir)
	Deadline time.Duration // per utterance and per voice load (0: FestivalDeadline)
	Idle     time.Duration // an unused process is stopped after this (0: FestivalIdle)

	mu     sync.Mutex
	procs  map[string]*festivalVoice // by voice ID
	closed bool
}

// festivalVoice is the process of one voice; its mutex serialises the
// utterances sent to it.
type festivalVoice struct {
	mu     sync.Mutex
	proc   *festivalProc // nil until started, and after it is stopped
	idle   *time.Timer
	uses   int  // utterances asked for, so a late idle timer spares a process in use since
	closed bool // the engine was closed: no process is started again
	owner  *FestivalTTS
}

// Synthesize renders text in voice v on v's process and reads the WAV
// back, resampled to 16 kHz.
func (f *FestivalTTS) Synthesize(ctx context.Context, text string, v Voice) ([]float32, error) {
	fv, err := f.voice(v.ID)
	if err != nil {
		return nil, err
	}
	return fv.synthesize(ctx, text, v)
}

// voice returns the process holder of one voice, made on first use.
func (f *FestivalTTS) voice(id string) (*festivalVoice, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, errors.New("festival: engine closed")
	}
	if f.procs == nil {
		f.procs = map[string]*festivalVoice{}
	}
	fv := f.procs[id]
	if fv == nil {
		fv = &festivalVoice{owner: f}
		f.procs[id] = fv
	}
	return fv, nil
}

// Close stops every festival process; the engine renders no more.
func (f *FestivalTTS) Close() error {
	f.mu.Lock()
	f.closed = true
	voices := f.procs
	f.procs = nil
	f.mu.Unlock()
	for _, fv := range voices {
		fv.mu.Lock()
		fv.closed = true
		fv.stop(festivalGrace)
		fv.mu.Unlock()
	}
	return nil
}

func (f *FestivalTTS) deadline() time.Duration {
	if f.Deadline > 0 {
		return f.Deadline
	}
	return FestivalDeadline
}

func (f *FestivalTTS) idleAfter() time.Duration {
	if f.Idle > 0 {
		return f.Idle
	}
	return FestivalIdle
}

// synthesize tries the utterance up to festivalAttempts times, each on a
// process that is alive: a crash or a missed deadline kills the process,
// and the next attempt starts a fresh one. Festival's own refusal (an
// error it reports and survives) is not retried: it would refuse again.
func (fv *festivalVoice) synthesize(ctx context.Context, text string, v Voice) ([]float32, error) {
	fv.mu.Lock()
	defer fv.mu.Unlock()
	fv.uses++
	if fv.idle != nil {
		fv.idle.Stop()
	}
	defer fv.armIdle()
	var err error
	for range festivalAttempts {
		var x []float32
		if x, err = fv.attempt(ctx, text, v); err == nil {
			return x, nil
		}
		var refused *festivalRefusal
		if errors.As(err, &refused) {
			return nil, fmt.Errorf("festival voice %s %q: %w", v.Name, text, err)
		}
		fv.stop(0)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	return nil, fmt.Errorf("festival voice %s %q: %d attempts: %w", v.Name, text, festivalAttempts, err)
}

// attempt renders text on the voice's process, started first if there is
// none. The caller holds fv.mu.
func (fv *festivalVoice) attempt(ctx context.Context, text string, v Voice) ([]float32, error) {
	if fv.proc == nil {
		if fv.closed {
			return nil, &festivalRefusal{msg: "engine closed"}
		}
		p, err := startFestival(ctx, fv.owner.Program, fv.owner.TempDir, v, fv.owner.deadline())
		if err != nil {
			return nil, err
		}
		fv.proc = p
	}
	return fv.proc.say(ctx, text, fv.owner.deadline())
}

// armIdle stops the process once it has been unused for the engine's
// idle time. The caller holds fv.mu.
func (fv *festivalVoice) armIdle() {
	if fv.proc == nil {
		return
	}
	uses := fv.uses
	fv.idle = time.AfterFunc(fv.owner.idleAfter(), func() {
		fv.mu.Lock()
		defer fv.mu.Unlock()
		if fv.uses == uses {
			fv.stop(festivalGrace)
		}
	})
}

// stop ends the voice's process, if any, killing it after grace. The
// caller holds fv.mu.
func (fv *festivalVoice) stop(grace time.Duration) {
	if fv.idle != nil {
		fv.idle.Stop()
	}
	if fv.proc != nil {
		fv.proc.stop(grace)
		fv.proc = nil
	}
}

// festivalString quotes s as a Scheme string literal: backslashes and
// double quotes escaped, control characters (which festival's text
// analysis reads as spaces anyway) written as spaces.
func festivalString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < ' ' || r == 0x7f:
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// festivalVoiceSetup is the Scheme that selects voice v and its speaking
// rate: Duration_Stretch for the diphone voices, the HTS engine's speed
// ratio for HTS voices (which ignore Duration_Stretch). Pitch is the
// voice's own.
func festivalVoiceSetup(v Voice) (string, error) {
	if v.Rate <= 0 || !festivalVoiceName(v.Name) {
		return "", fmt.Errorf("festival voice %q rate %d: need a voice name of letters, digits and _ and a positive rate", v.Name, v.Rate)
	}
	stretch := strconv.FormatFloat(175/float64(v.Rate), 'f', 3, 64)
	speed := strconv.FormatFloat(float64(v.Rate)/175, 'f', 3, 64)
	return "(voice_" + v.Name + ")\n" +
		"(Parameter.set 'Duration_Stretch " + stretch + ")\n" +
		"(if (equal? (Parameter.get 'Synth_Method) 'HTS) " +
		"(set! hts_engine_params (append hts_engine_params (list (list \"-r\" " + speed + ")))))\n", nil
}

func festivalVoiceName(s string) bool {
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}
