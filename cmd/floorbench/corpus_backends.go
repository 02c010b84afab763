package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/backend"
	"github.com/floorbench/floorbench/internal/config"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/synth"
)

// backendFlags are `corpus generate`'s flags for the generative backends.
type backendFlags struct {
	config      backend.Config
	ops         backend.Operations
	cache       string
	storeConfig func() (config.Config, error)
}

func addBackendFlags(cmd *cobra.Command) *backendFlags {
	b := &backendFlags{storeConfig: storeFlags(cmd)}
	f := cmd.Flags()
	f.StringVar(&b.config.Dialogue, "dialogue", backend.Templates, "dialogue backend: templates or openai-chat")
	f.StringVar(&b.config.DialogueEndpoint, "dialogue-endpoint", "", "chat endpoint base URL (openai-chat), such as http://127.0.0.1:8000/v1")
	f.StringVar(&b.config.DialogueModel, "dialogue-model", "", "chat model (openai-chat)")
	f.IntVar(&b.ops.DialogueConcurrency, "dialogue-concurrency", 4, "chat requests in flight at once")
	f.StringVar(&b.config.Voices, "voices", backend.Offline, "voice backend: offline (espeak-ng, flite, festival) or openai-speech")
	f.StringVar(&b.config.VoicesEndpoint, "voices-endpoint", "", "speech endpoint base URL (openai-speech)")
	f.StringVar(&b.config.VoicesModel, "voices-model", "", "speech model (openai-speech)")
	f.StringSliceVar(&b.config.VoicesNames, "voices-names", nil, "the speech endpoint's voices to cast, comma-separated (openai-speech)")
	f.StringVar(&b.config.VoicesFormat, "voices-format", "", "audio format asked of the speech endpoint: wav (default) or pcm")
	f.IntVar(&b.ops.VoicesConcurrency, "voices-concurrency", 4, "speech requests in flight at once")
	f.DurationVar(&b.ops.Timeout, "request-timeout", 2*time.Minute, "deadline of one request to a backend")
	f.StringVar(&b.cache, "cache", "", "folder of cached generative outputs (default: the configured store)")
	return b
}

// open validates the flags and opens the backends for a preset; nil when
// every stage is offline.
func (b *backendFlags) open(ctx context.Context, preset string, seed uint64) (*backend.Opened, error) {
	b.config = b.config.Normalised()
	if err := b.config.Validate("--"); err != nil {
		return nil, err
	}
	if b.ops.DialogueConcurrency < 1 || b.ops.VoicesConcurrency < 1 || b.ops.Timeout <= 0 {
		return nil, fmt.Errorf("--dialogue-concurrency, --voices-concurrency and --request-timeout: want positive values")
	}
	if !b.config.Generative() {
		return nil, nil
	}
	// Read first: a front handed to floorbench-full (an S3 store) has
	// printed nothing yet.
	cfg, err := b.storeConfig()
	if err != nil {
		return nil, err
	}
	if p, err := synth.PresetByName(preset, seed); err == nil {
		pools, err := b.config.Pools(p, "--voices-names")
		if err != nil {
			return nil, err
		}
		if pools != nil && b.ops.Notice != nil {
			fmt.Fprintln(b.ops.Notice, backend.DescribePools(pools))
		}
	}
	cache, err := b.openCache(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return backend.Open(b.config, cfg.GenerativeSecrets(), b.ops, cache, nil)
}

// openCache is the --cache folder, or the configured store.
func (b *backendFlags) openCache(ctx context.Context, cfg config.Config) (store.Store, error) {
	if b.cache == "" {
		return cfg.OpenStore(ctx)
	}
	st, err := store.NewLocal(b.cache)
	if err != nil {
		return nil, fmt.Errorf("--cache: %w", err)
	}
	return config.Summing(st.WithReadLimit(cfg.Limits.InputBytes)), nil
}

// generativeCounts is what -o json says of the generative backends' work.
type generativeCounts struct {
	DialogueFetched  int64 `json:"dialogue_answers_requested"`
	DialogueCached   int64 `json:"dialogue_answers_cached"`
	DialogueRequests int64 `json:"dialogue_http_requests"`
	VoicesFetched    int64 `json:"utterances_requested"`
	VoicesCached     int64 `json:"utterances_cached"`
	VoicesRequests   int64 `json:"voices_http_requests"`
	// The outputs among those requested whose cached bytes did not match
	// their recorded sum.
	DialogueReplaced int64 `json:"dialogue_answers_replaced"`
	VoicesReplaced   int64 `json:"utterances_replaced"`
}

func countsOf(o *backend.Opened) *generativeCounts {
	if o == nil {
		return nil
	}
	g := &generativeCounts{}
	g.DialogueRequests, g.VoicesRequests = o.Requests()
	if o.Dialogue != nil {
		g.DialogueFetched, g.DialogueCached, g.DialogueReplaced = o.Dialogue.Fetched.Load(), o.Dialogue.Cached.Load(), o.Dialogue.Replaced.Load()
	}
	if o.Voices != nil {
		g.VoicesFetched, g.VoicesCached, g.VoicesReplaced = o.Voices.Fetched.Load(), o.Voices.Cached.Load(), o.Voices.Replaced.Load()
	}
	return g
}

// print says what the backends did, on stderr beside the progress.
func (g *generativeCounts) print(w io.Writer) {
	if g == nil {
		return
	}
	fmt.Fprintf(w, "dialogue: %d answers requested (%d HTTP requests), %d from the cache; voices: %d utterances requested (%d HTTP requests), %d from the cache\n",
		g.DialogueFetched, g.DialogueRequests, g.DialogueCached, g.VoicesFetched, g.VoicesRequests, g.VoicesCached)
	if g.DialogueReplaced+g.VoicesReplaced > 0 {
		fmt.Fprintf(w, "the cache held %d answers and %d utterances whose bytes did not match their recorded sums: requested again and replaced\n",
			g.DialogueReplaced, g.VoicesReplaced)
	}
}

// exportCacheResult is the JSON shape of `corpus export-cache -o json`.
type exportCacheResult struct {
	Corpus  string `json:"corpus"`
	Out     string `json:"out"`
	Outputs int    `json:"outputs"`
}

func newCorpusExportCacheCommand() *cobra.Command {
	var out, output string
	var force bool
	cmd := &cobra.Command{
		Use:   "export-cache DIR --out CACHE",
		Short: "Copy the cached chat answers and utterances a generated corpus was made from into a folder for --cache",
		Args:  cobra.ExactArgs(1),
	}
	read := storeFlags(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if out == "" {
			return fmt.Errorf("--out is required")
		}
		if err := checkOutDir("--out", out, force); err != nil {
			return err
		}
		m, err := corpus.ReadManifest(args[0], commandLimits(cmd))
		if err != nil {
			return err
		}
		cfg, err := read()
		if err != nil {
			return err
		}
		from, err := cfg.OpenStore(cmd.Context())
		if err != nil {
			return err
		}
		var n int
		err = replaceDir(out, force, func(tmp string) error {
			to, err := store.NewLocal(tmp)
			if err != nil {
				return err
			}
			n, err = backend.ExportCache(cmd.Context(), m, from, config.Summing(to))
			if err != nil {
				return fmt.Errorf("corpus %s: %w", args[0], err)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if output == "json" {
			return writeJSON(cmd.OutOrStdout(), exportCacheResult{args[0], out, n})
		}
		fmt.Fprintf(cmd.OutOrStdout(), "wrote %d cached outputs to %s\n", n, out)
		return nil
	}
	cmd.Flags().StringVar(&out, "out", "", "output folder (created; must not exist or be empty unless --force)")
	cmd.Flags().BoolVar(&force, "force", false, "replace what is at --out, atomically")
	outputFlag(cmd, &output, statusFormats)
	return cmd
}
