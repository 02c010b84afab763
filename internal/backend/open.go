package backend

import (
	"io"
	"time"

	"github.com/floorbench/floorbench/internal/credential"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/openai"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/synth"
)

// Environment variables that hold the backends' API keys; the
// configuration file's dialogue_api_key and voices_api_key are read when
// they are unset.
const (
	DialogueKeyEnv = "FLOORBENCH_DIALOGUE_API_KEY"
	VoicesKeyEnv   = "FLOORBENCH_VOICES_API_KEY"
)

// Secrets are the backends' API keys ("" sends none).
type Secrets struct {
	Dialogue, Voices credential.Secret
}

// Operations bound the work of the backends' requests; zero fields take
// openai's defaults.
type Operations struct {
	DialogueConcurrency int           // chat requests in flight at once
	VoicesConcurrency   int           // speech requests in flight at once
	Timeout             time.Duration // deadline of one request attempt
	Attempts            int           // tries of one request (429, 5xx, transport failures)
	Backoff             time.Duration // first wait between tries
	// Limits bound what an endpoint can ask for: the wait of a
	// Retry-After, the length of a speech answer (the zero Limits: the
	// defaults).
	Limits limits.Limits
	// Notice, if set, is told once of a long wait an endpoint asked for.
	Notice io.Writer
}

func (o Operations) client(concurrency int) openai.Options {
	return openai.Options{Concurrency: concurrency, Timeout: o.Timeout, Attempts: o.Attempts, Backoff: o.Backoff,
		MaxRetryAfter: o.Limits.OrDefault().RetryAfter(), Notice: o.Notice}
}

// Opened is a configuration's backends, ready for a generation.
type Opened struct {
	Config   Config
	Backends synth.Backends
	// Dialogue and Voices count the generative backends' work (nil for an
	// offline stage).
	Dialogue, Voices *Stats
	chat, speech     *openai.Client
	ownEngines       bool // Open made the offline engines, so Close stops them
}

// Open makes the backends of c: generative stages through clients of
// their endpoints with outputs cached in cache, offline voices from
// engines (nil: espeak-ng, flite and festival from $PATH, stopped by Close).
func Open(c Config, s Secrets, ops Operations, cache store.Store, engines map[string]synth.TTS) (*Opened, error) {
	o := &Opened{Config: c}
	var err error
	if c.dialogue() == OpenAIChat {
		o.chat, err = openai.New(c.DialogueEndpoint, s.Dialogue, ops.client(ops.DialogueConcurrency))
		if err != nil {
			return nil, err
		}
		ch := &chat{client: o.chat, model: c.DialogueModel, cache: newCache(cache)}
		o.Backends.Scripts, o.Dialogue = synth.ChatScripts{Chat: ch}, ch.cache.stats
	}
	if c.voices() != OpenAISpeech {
		if engines == nil {
			if engines, err = synth.NewTTS(""); err != nil {
				return nil, err
			}
			o.ownEngines = true
		}
		o.Backends.Engines = engines
		return o, nil
	}
	o.speech, err = openai.New(c.VoicesEndpoint, s.Voices, ops.client(ops.VoicesConcurrency))
	if err != nil {
		return nil, err
	}
	sp := &speech{client: o.speech, model: c.VoicesModel, format: c.format(), cache: newCache(cache), lim: ops.Limits.OrDefault()}
	o.Backends.Engines, o.Voices = map[string]synth.TTS{OpenAISpeech: sp}, sp.cache.stats
	return o, nil
}

// ForPreset is the backends that generate preset: the named voices split
// into the pools it needs (Config.Pools), or the offline inventory's.
func (o *Opened) ForPreset(preset synth.Preset) (synth.Backends, error) {
	b := o.Backends
	pools, err := o.Config.Pools(preset, "voices names")
	if err != nil {
		return synth.Backends{}, err
	}
	b.Pools = pools
	return b, nil
}

// Close stops the processes of the offline engines Open made (festival's);
// engines passed to Open are their owner's to close. A nil Opened (every
// stage offline, opened later) has nothing to stop.
func (o *Opened) Close() error {
	if o == nil || !o.ownEngines {
		return nil
	}
	return synth.CloseTTS(o.Backends.Engines)
}

// Requests is how many HTTP requests the dialogue and voice backends sent,
// retries included.
func (o *Opened) Requests() (dialogue, voices int64) {
	if o.chat != nil {
		dialogue = o.chat.Requests()
	}
	if o.speech != nil {
		voices = o.speech.Requests()
	}
	return dialogue, voices
}
