package backend

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/dialogue"
	"github.com/floorbench/floorbench/internal/names"
	"github.com/floorbench/floorbench/internal/openai"
	"github.com/floorbench/floorbench/internal/synth"
)

// Backend names.
const (
	Templates    = "templates"     // dialogue from the topic banks and templates (default)
	OpenAIChat   = "openai-chat"   // dialogue from an OpenAI-compatible chat endpoint
	Offline      = "offline"       // voices of espeak-ng, flite and festival (default)
	OpenAISpeech = "openai-speech" // voices of an OpenAI-compatible speech endpoint
)

// Config selects the generator's backends: the keys of a sweep spec's
// generate: section and the flags of `corpus generate`
// (docs/corpora.md#generative-backends). Empty fields are the defaults.
// Endpoints say where a backend is served and are not part of a corpus's
// identity; models, voice names and the format are.
type Config struct {
	Dialogue         string   `yaml:"dialogue,omitempty" json:"dialogue,omitempty"`
	DialogueEndpoint string   `yaml:"dialogue_endpoint,omitempty" json:"dialogue_endpoint,omitempty"`
	DialogueModel    string   `yaml:"dialogue_model,omitempty" json:"dialogue_model,omitempty"`
	Voices           string   `yaml:"voices,omitempty" json:"voices,omitempty"`
	VoicesEndpoint   string   `yaml:"voices_endpoint,omitempty" json:"voices_endpoint,omitempty"`
	VoicesModel      string   `yaml:"voices_model,omitempty" json:"voices_model,omitempty"`
	VoicesNames      []string `yaml:"voices_names,omitempty" json:"voices_names,omitempty"`
	VoicesFormat     string   `yaml:"voices_format,omitempty" json:"voices_format,omitempty"` // wav (default) or pcm
}

// Chat parameters. PromptVersion is raised with any change of the prompt
// (synth.ScriptSystemPrompt, ScriptPlan.UserPrompt) or of how answers are
// read; it is part of the dialogue backend's identity.
const (
	PromptVersion   = 1
	ChatTemperature = 0.8
)

// voiceName is what a speech endpoint's voice may be called.
var voiceName = names.MustForm(`^[A-Za-z0-9][A-Za-z0-9_.+-]*$`, 64)

// modelName is what a model may be called (Hugging Face ids, Ollama tags).
var modelName = names.MustForm(`^[A-Za-z0-9][A-Za-z0-9_.:/+-]*$`, 200)

// Generative reports whether any stage uses a generative backend.
func (c Config) Generative() bool { return c.dialogue() != Templates || c.voices() != Offline }

func (c Config) dialogue() string { return cmp.Or(c.Dialogue, Templates) }
func (c Config) voices() string   { return cmp.Or(c.Voices, Offline) }
func (c Config) format() string   { return cmp.Or(c.VoicesFormat, openai.FormatWAV) }

// Normalised is c with the default backends' names left out, so a
// configuration that names them says the same as one that does not.
func (c Config) Normalised() Config {
	if c.Dialogue == Templates {
		c.Dialogue = ""
	}
	if c.Voices == Offline {
		c.Voices = ""
	}
	return c
}

// Validate checks the configuration; errors name the key (prefix is
// where it stands: "--" for flags, "corpora[0].generate." in a spec)
// and never quote an endpoint.
func (c Config) Validate(prefix string) error {
	key := func(name string) string {
		if prefix == "--" {
			return "--" + strings.ReplaceAll(name, "_", "-")
		}
		return prefix + name
	}
	switch c.dialogue() {
	case Templates:
		if c.DialogueEndpoint != "" || c.DialogueModel != "" {
			return fmt.Errorf("%s and %s: only with %s %s", key("dialogue_endpoint"), key("dialogue_model"), key("dialogue"), OpenAIChat)
		}
	case OpenAIChat:
		if err := checkServed(key, "dialogue", c.DialogueEndpoint, c.DialogueModel); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%s %q: want %s or %s", key("dialogue"), c.Dialogue, Templates, OpenAIChat)
	}
	switch c.voices() {
	case Offline:
		if c.VoicesEndpoint != "" || c.VoicesModel != "" || len(c.VoicesNames) > 0 || c.VoicesFormat != "" {
			return fmt.Errorf("%s, %s, %s and %s: only with %s %s", key("voices_endpoint"), key("voices_model"), key("voices_names"), key("voices_format"), key("voices"), OpenAISpeech)
		}
	case OpenAISpeech:
		if err := checkServed(key, "voices", c.VoicesEndpoint, c.VoicesModel); err != nil {
			return err
		}
		return c.checkVoiceNames(key("voices_names"), key("voices_format"))
	default:
		return fmt.Errorf("%s %q: want %s or %s", key("voices"), c.Voices, Offline, OpenAISpeech)
	}
	return nil
}

func checkServed(key func(string) string, stage, endpoint, model string) error {
	if endpoint == "" {
		return fmt.Errorf("%s: missing", key(stage+"_endpoint"))
	}
	if err := openai.CheckEndpoint(endpoint); err != nil {
		return fmt.Errorf("%s: %w", key(stage+"_endpoint"), err)
	}
	if !modelName.Match(model) {
		return fmt.Errorf("%s %q: want a model name of letters, digits and _ . : / + - (at most 200)", key(stage+"_model"), model)
	}
	return nil
}

func (c Config) checkVoiceNames(namesKey, formatKey string) error {
	if len(c.VoicesNames) == 0 {
		return fmt.Errorf("%s: missing (the speech endpoint's voices to cast, comma-separated)", namesKey)
	}
	seen := map[string]bool{}
	for _, n := range c.VoicesNames {
		if !voiceName.Match(n) {
			return fmt.Errorf("%s: voice %q: want letters, digits and _ . + - (at most 64)", namesKey, n)
		}
		if seen[n] {
			return fmt.Errorf("%s: voice %s named twice", namesKey, n)
		}
		seen[n] = true
	}
	if f := c.format(); f != openai.FormatWAV && f != openai.FormatPCM {
		return fmt.Errorf("%s %q: want %s or %s", formatKey, f, openai.FormatWAV, openai.FormatPCM)
	}
	return nil
}

// Identity is what a corpus made with these backends records in
// corpus.json and its hash covers; nil for the offline defaults.
func (c Config) Identity() []corpus.Backend {
	var out []corpus.Backend
	if c.dialogue() == OpenAIChat {
		out = append(out, corpus.Backend{Stage: "dialogue", Name: OpenAIChat, Model: c.DialogueModel, Params: map[string]string{
			"prompt_version": strconv.Itoa(PromptVersion),
			"temperature":    strconv.FormatFloat(ChatTemperature, 'g', -1, 64),
			"attempts":       strconv.Itoa(synth.DefaultChatAttempts),
		}})
	}
	if c.voices() == OpenAISpeech {
		out = append(out, corpus.Backend{Stage: "voices", Name: OpenAISpeech, Model: c.VoicesModel, Params: map[string]string{
			"voices": strings.Join(c.VoicesNames, ","),
			"format": c.format(),
		}})
	}
	return out
}

// Inventory is the voices the generator casts from: the named voices of
// the speech endpoint, or nil (the offline inventory).
func (c Config) Inventory() []synth.Voice {
	if c.voices() != OpenAISpeech {
		return nil
	}
	var vs []synth.Voice
	for _, n := range c.VoicesNames {
		vs = append(vs, synth.Voice{ID: OpenAISpeech + ":" + c.VoicesModel + "/" + n, Engine: OpenAISpeech, Name: n})
	}
	return vs
}

// Pools splits the named voices into the dev and test pools the preset
// needs (synth.SplitVoices); nil when the voices are the offline
// inventory. key names the voice names in the error.
func (c Config) Pools(preset synth.Preset, key string) (map[dialogue.Split][]synth.Voice, error) {
	inv := c.Inventory()
	if inv == nil {
		return nil, nil
	}
	need := synth.PoolNeed(preset)
	pools, ok := synth.SplitVoices(inv, need)
	if !ok {
		return nil, fmt.Errorf("%s: %d voices; preset %s needs %d dev and %d test voices: name at least %d",
			key, len(inv), preset.Name, need[dialogue.Dev], need[dialogue.Test], need[dialogue.Dev]+need[dialogue.Test])
	}
	return pools, nil
}

// CheckPools checks that the named voices give the preset its pools
// (Pools).
func (c Config) CheckPools(preset synth.Preset, key string) error {
	_, err := c.Pools(preset, key)
	return err
}

// DescribePools says which voices are dev and which test, for a user who
// named them.
func DescribePools(pools map[dialogue.Split][]synth.Voice) string {
	names := func(vs []synth.Voice) string {
		var out []string
		for _, v := range vs {
			out = append(out, v.Name)
		}
		return strings.Join(out, ", ")
	}
	return fmt.Sprintf("voices: dev %s; test %s", names(pools[dialogue.Dev]), names(pools[dialogue.Test]))
}
