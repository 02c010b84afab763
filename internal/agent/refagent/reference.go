package refagent

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/synth"
)

// Config is a reference agent: its policy and every parameter, with
// DefaultConfig's values as published defaults.
type Config struct {
	Policy string       `json:"policy"`
	Speech SpeechParams `json:"speech"`
	// EntrySilence is how long always-yield and never-yield wait, after
	// the other side's speech has ended, before entering.
	EntrySilence time.Duration `json:"entry_silence"`
	// ReentrySilence is how long always-yield waits after a yield before
	// it enters again: longer than the scorer's stop silence
	// (docs/agents.md#scoring), so a yield is scored as one.
	ReentrySilence time.Duration `json:"reentry_silence"`
	// Detector configures the detector policy.
	Detector DetectorConfig `json:"detector"`
	// Voice speaks the agent's utterances.
	Voice synth.Voice `json:"voice"`
}

// DefaultVoice is the agent's espeak-ng voice.
var DefaultVoice = synth.Voice{ID: "espeak-ng:en-us+m3", Engine: synth.EngineEspeak, Name: "en-us+m3", Pitch: 45, Rate: 170}

// DefaultConfig is the published setting of policy.
func DefaultConfig(policy string) Config {
	return Config{Policy: policy, Speech: DefaultSpeech(), EntrySilence: 200 * time.Millisecond,
		ReentrySilence: 1500 * time.Millisecond,
		Detector:       DefaultDetector(), Voice: DefaultVoice}
}

// Utterances are what the agent says when it enters the floor, in turn:
// each a few seconds long, so that there is time to talk over it.
var Utterances = []string{
	"Sure, I can help with that. Let me go through the main steps one at a time, so that nothing gets missed along the way.",
	"That is a good question. The short answer is yes, but there are a couple of details worth checking before you decide.",
	"Right, here is what I would suggest. Start with the simplest option first, and only move on if it does not work for you.",
}

// ShortUtterance is what the detector policy says at a commit in
// speak-at-commit mode: shorter than the commit rule's refractory, so the
// agent is silent again before its next commit can come.
const ShortUtterance = "Okay."

// Reference is the reference agent: its utterances spoken once, its policy
// made afresh for every connection.
type Reference struct {
	cfg   Config
	long  [][]float32 // Utterances, 16 kHz
	short []float32   // ShortUtterance
}

// New checks cfg and speaks the agent's utterances with tts.
func New(ctx context.Context, cfg Config, tts synth.TTS) (*Reference, error) {
	if err := CheckPolicy(cfg.Policy); err != nil {
		return nil, err
	}
	if err := cfg.Speech.check(); err != nil {
		return nil, err
	}
	if cfg.EntrySilence < 0 || cfg.ReentrySilence < 0 {
		return nil, fmt.Errorf("entry silence %v, re-entry silence %v: must be >= 0", cfg.EntrySilence, cfg.ReentrySilence)
	}
	if cfg.Policy == Detector {
		if err := cfg.Detector.check(); err != nil {
			return nil, err
		}
	}
	r := &Reference{cfg: cfg}
	for _, text := range Utterances {
		x, err := tts.Synthesize(ctx, text, cfg.Voice)
		if err != nil {
			return nil, fmt.Errorf("speaking the agent's utterances: %w", err)
		}
		r.long = append(r.long, x)
	}
	short, err := tts.Synthesize(ctx, ShortUtterance, cfg.Voice)
	if err != nil {
		return nil, fmt.Errorf("speaking the agent's utterances: %w", err)
	}
	if d := time.Duration(len(short)) * time.Second / proto.SampleRate; cfg.Policy == Detector && d.Seconds() >= cfg.Detector.Refractory {
		return nil, fmt.Errorf("the short utterance lasts %v, not under the refractory of %v s", d, cfg.Detector.Refractory)
	}
	r.short = short
	return r, nil
}

// EspeakTTS is espeak-ng run as a program, found on PATH.
func EspeakTTS() (synth.TTS, error) {
	path, err := exec.LookPath(synth.EngineEspeak)
	if err != nil {
		return nil, fmt.Errorf("%w: %s (install it with: scripts/setup.sh speech)", synth.ErrMissingProgram, synth.EngineEspeak)
	}
	return &synth.ProgramTTS{Engine: synth.EngineEspeak, Program: path}, nil
}

// Name is the agent's name in the duplex hello.
func (r *Reference) Name() string { return "floorbench reference agent (" + r.cfg.Policy + ")" }

// Handler serves the agent over protocol.
func (r *Reference) Handler(protocol string, opt proto.ServerOptions) (*proto.Handler, error) {
	opt.Name = r.Name()
	return proto.NewHandler(protocol, r.NewAgent, opt)
}

// NewAgent makes the agent of one connection.
func (r *Reference) NewAgent() (proto.Agent, error) {
	speech, err := NewSpeechDetector(r.cfg.Speech)
	if err != nil {
		return nil, err
	}
	var policy Policy
	switch r.cfg.Policy {
	case AlwaysYield, NeverYield:
		policy = &silencePolicy{yield: r.cfg.Policy == AlwaysYield, entry: frames(r.cfg.EntrySilence), reentry: frames(r.cfg.ReentrySilence)}
	case Detector:
		if policy, err = newDetectorPolicy(r.cfg.Detector); err != nil {
			return nil, err
		}
	}
	return &agent{ref: r, policy: policy, speech: speech}, nil
}

// agent is the reference agent on one connection: its speech detector, its
// policy, and which utterance comes next.
type agent struct {
	ref       *Reference
	policy    Policy
	speech    *SpeechDetector
	next      int  // the next of ref.long
	announced bool // a speech_started went out, its speech_stopped not yet
}

// Hear runs the speech detector and the policy on one input frame and
// turns the act into the protocol's decision. Speech that starts while
// the agent talks is announced only when the agent yields to it: a
// realtime client stops playback on speech_started, so announcing it
// would make never-yield yield.
func (a *agent) Hear(in, own []float32) (proto.Decision, error) {
	started, ended := a.speech.Push(in)
	act, err := a.policy.Step(Frame{In: in, Own: own, Speech: a.speech.Speech()})
	if err != nil {
		return proto.Decision{}, err
	}
	talking := own != nil
	var d proto.Decision
	switch {
	case act == Speak && !talking:
		d.Say, d.Text = a.ref.long[a.next%len(a.ref.long)], Utterances[a.next%len(a.ref.long)]
		a.next++
	case act == SpeakShort && !talking:
		d.Say, d.Text = a.ref.short, ShortUtterance
	case act == Yield && talking:
		d.Stop = true
		a.announced = true
	}
	if started && !talking {
		d.SpeechStarted, a.announced = true, true
	}
	if ended && a.announced {
		d.SpeechStopped, a.announced = true, false
	}
	return d, nil
}

// Close closes the policy's resources (a detector's stream).
func (a *agent) Close() error {
	if c, ok := a.policy.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
