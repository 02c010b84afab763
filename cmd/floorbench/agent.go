package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/agent/refagent"
	"github.com/floorbench/floorbench/internal/credential"
	"github.com/floorbench/floorbench/internal/detect"
)

func init() { subcommands = append(subcommands, newAgentCommand) }

// agentSubcommands holds the constructors of the `agent` commands; each
// command's file adds itself in an init function.
var agentSubcommands = []func() *cobra.Command{newAgentServeCommand}

func newAgentCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Test full-duplex voice agents: scenarios, the reference agent, trials over real protocols, scores from their audio",
		Long: `Agent groups the commands about full-duplex voice agents (docs/agents.md):
scenarios builds interactive START/STOP trials, serve runs floorbench's
reference agent over a real protocol, run plays trials to an agent and
records them, score decides recorded trials from the agent's audio.`,
		Args: cobra.NoArgs,
	}
	for _, sub := range agentSubcommands {
		cmd.AddCommand(sub())
	}
	return cmd
}

type agentServeOptions struct {
	protocol, addr, policy string
	system, spec           string
	params                 []string
	threshold, refractory  float64
	speakAtCommit          bool
	rate                   float64
	maxSessions            int
	lead, handshake, idle  time.Duration
	tlsCert, tlsKey        string
}

func newAgentServeCommand() *cobra.Command {
	o := agentServeOptions{policy: refagent.AlwaysYield}
	def := refagent.DefaultDetector()
	cmd := &cobra.Command{
		Use:   "serve --protocol duplex|realtime|gemini-live|moshi [--addr 127.0.0.1:8765] [--policy always-yield|never-yield|detector]",
		Short: "Run the reference agent over a real protocol until interrupted",
		Long: `Serve runs floorbench's reference agent (docs/agents.md#reference-agent): a
WebSocket server speaking --protocol (duplex, realtime, gemini-live or moshi, docs/agents.md#protocols)
that talks with espeak-ng and takes its floor decisions from what it hears.

always-yield enters after the other side's speech and a short silence and
stops at once when anyone speaks over it; never-yield enters the same way
and never stops before its utterance ends; detector takes its decisions
from a floorbench detector system (--system or --system-spec, --param) at
--threshold under the commit rule: a committed EOT enters, a committed INT
while it talks stops it. --speak-at-commit says a short utterance at every
EOT commit instead.

--rate is the playback rate its clients run at (tests run faster than real
time; real evaluations at 1). --tls-cert and --tls-key serve wss:// instead
of ws://, for clients such as official SDKs that connect over TLS only. It serves until Ctrl-C or SIGTERM, then ends
every session.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runAgentServe(cmd, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.protocol, "protocol", "", "agent protocol: "+strings.Join(proto.Protocols(), ", "))
	f.StringVar(&o.addr, "addr", "127.0.0.1:8765", "address to listen on (host:port)")
	f.StringVar(&o.policy, "policy", o.policy, "floor policy: always-yield, never-yield or detector")
	f.StringVar(&o.system, "system", "", "detector policy: built-in system by family name (see floorbench systems)")
	f.StringVar(&o.spec, "system-spec", "", "detector policy: system spec file (YAML)")
	f.StringArrayVar(&o.params, "param", nil, "detector policy: set a system parameter, name=value (repeatable)")
	f.Float64Var(&o.threshold, "threshold", def.Threshold, "detector policy: threshold of the commit rule")
	f.Float64Var(&o.refractory, "refractory", def.Refractory, "detector policy: refractory of the commit rule (seconds)")
	f.BoolVar(&o.speakAtCommit, "speak-at-commit", false, "detector policy: say a short utterance at every EOT commit")
	f.Float64Var(&o.rate, "rate", 1, "playback rate of the clients (session time per wall second)")
	f.IntVar(&o.maxSessions, "max-sessions", proto.DefaultMaxSessions, "sessions served at once; more are refused")
	f.DurationVar(&o.lead, "realtime-lead", proto.DefaultRealtimeLead, "realtime, gemini-live: how far ahead of playback audio is sent")
	f.DurationVar(&o.handshake, "handshake-timeout", proto.DefaultHandshakeTimeout, "wait for a client's first message (session time)")
	f.DurationVar(&o.idle, "idle-timeout", 30*time.Second, "wait for a client's next message (session time)")
	f.StringVar(&o.tlsCert, "tls-cert", "", "serve wss:// with this PEM certificate chain (with --tls-key)")
	f.StringVar(&o.tlsKey, "tls-key", "", "the PEM private key of --tls-cert")
	cmd.MarkFlagsRequiredTogether("tls-cert", "tls-key")
	_ = cmd.RegisterFlagCompletionFunc("protocol", cobra.FixedCompletions(proto.Protocols(), cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("policy", cobra.FixedCompletions(refagent.Policies, cobra.ShellCompDirectiveNoFileComp))
	cmd.MarkFlagsMutuallyExclusive("system", "system-spec")
	_ = cmd.MarkFlagRequired("protocol")
	return cmd
}

func runAgentServe(cmd *cobra.Command, o agentServeOptions) error {
	cfg, err := agentConfig(cmd, o)
	if err != nil {
		return err
	}
	scheme := "ws"
	var tlsConfig *tls.Config
	if o.tlsCert != "" {
		if tlsConfig, err = proto.ServerTLS(o.tlsCert, o.tlsKey); err != nil {
			return fmt.Errorf("--tls-cert, --tls-key: %w", err)
		}
		scheme = "wss"
	}
	tts, err := refagent.EspeakTTS()
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	defer l.Close()
	if tlsConfig != nil {
		l = tls.NewListener(l, tlsConfig)
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ref, err := refagent.New(ctx, cfg, tts)
	if err != nil {
		return err
	}
	h, err := ref.Handler(o.protocol, proto.ServerOptions{Rate: o.rate, MaxSessions: o.maxSessions, RealtimeLead: o.lead,
		HandshakeTimeout: o.handshake, IdleTimeout: o.idle, Log: log.New(cmd.ErrOrStderr(), "floorbench agent: ", log.LstdFlags)})
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s speaks %s at %s://%s/ (rate %v); Ctrl-C stops it\n", ref.Name(), o.protocol, scheme, l.Addr(), o.rate)
	if err := proto.Serve(ctx, l, h); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// agentConfig checks the flags, before anything starts, and makes the
// agent's configuration.
func agentConfig(cmd *cobra.Command, o agentServeOptions) (refagent.Config, error) {
	if err := proto.CheckProtocol(o.protocol); err != nil {
		return refagent.Config{}, fmt.Errorf("--protocol: %w", err)
	}
	if err := refagent.CheckPolicy(o.policy); err != nil {
		return refagent.Config{}, fmt.Errorf("--policy: %w", err)
	}
	if err := proto.CheckRate(o.rate); err != nil {
		return refagent.Config{}, fmt.Errorf("--rate: %w", err)
	}
	if o.maxSessions < 1 || o.lead < 0 || o.handshake <= 0 || o.idle <= 0 {
		return refagent.Config{}, errors.New("--max-sessions must be at least 1, --realtime-lead at least 0, the timeouts above 0")
	}
	cfg := refagent.DefaultConfig(o.policy)
	detectorFlags := o.system != "" || o.spec != "" || len(o.params) > 0 || o.speakAtCommit ||
		cmd.Flags().Changed("threshold") || cmd.Flags().Changed("refractory")
	if o.policy != refagent.Detector {
		if detectorFlags {
			return cfg, fmt.Errorf("--system, --system-spec, --param, --threshold, --refractory and --speak-at-commit are for --policy detector, not %s", o.policy)
		}
		return cfg, nil
	}
	if o.system == "" && o.spec == "" {
		return cfg, errors.New("--policy detector needs --system or --system-spec")
	}
	sys, err := loadSystem(o.system, o.spec, o.params, commandLimits(cmd))
	if err != nil {
		return cfg, err
	}
	rt := detect.RuntimeFromEnv()
	rt.Limits = commandLimits(cmd)
	cfg.Detector.System, cfg.Detector.Name, cfg.Detector.Runtime = sys, sys.Name, rt
	cfg.Detector.Threshold, cfg.Detector.Refractory, cfg.Detector.SpeakAtCommit = o.threshold, o.refractory, o.speakAtCommit
	return cfg, nil
}

// agentEndpointFlags adds the flags that name an agent and say how to
// reach it (protocol, endpoint, realtime session, credential, playback
// rate), which agent run and agent seat share; nameUsage is what --agent
// names the agent in.
func agentEndpointFlags(fs *pflag.FlagSet, nameUsage string, name, model, keyEnv *string, ep *proto.Endpoint) {
	fs.StringVar(name, "agent", "", nameUsage)
	fs.StringVar(&ep.Protocol, "protocol", "", "agent protocol: "+fmt.Sprint(proto.Protocols()))
	fs.StringVar(&ep.URL, "endpoint", "", "the agent's WebSocket URL (ws:// or wss://)")
	fs.StringVar(model, "model", "", "realtime, gemini-live: the model to ask for")
	fs.StringVar(&ep.Realtime.Voice, "voice", "", "realtime, gemini-live: the agent's voice")
	fs.StringVar(&ep.Realtime.Instructions, "instructions", "", "realtime, gemini-live: the agent's instructions")
	fs.StringVar(&ep.Realtime.TurnDetection, "turn-detection", "", "realtime: server_vad (default), semantic_vad or none")
	fs.StringVar(&ep.Realtime.API, "realtime-api", "", "realtime: session.update shape, beta (default) or ga")
	fs.StringVar(keyEnv, "credential-env", "", "environment variable holding the agent's credential (never printed)")
	fs.StringVar(&ep.AuthHeader, "auth-header", "", "header the credential goes in (default Authorization: Bearer; gemini-live x-goog-api-key; moshi kyutai-api-key)")
	fs.StringVar(&ep.CAFile, "ca-file", "", "PEM file of CA certificates trusted for a wss:// endpoint, beside the system's")
	fs.StringVar(&ep.AuthQuery, "auth-query", "", "URL query parameter the credential goes in instead of a header (gemini-live: key; moshi: auth_id)")
	fs.Float64Var(&ep.Rate, "rate", 1, "playback rate: 1 is real time; faster only for agents that keep time by the audio they hear")
}

// setCredential gives ep the credential held in environment variable
// keyEnv ("": none).
func setCredential(ep *proto.Endpoint, keyEnv string) error {
	if keyEnv == "" {
		return nil
	}
	secret, err := credential.FromEnv(keyEnv)
	if err != nil {
		return err
	}
	ep.Credential = secret
	return nil
}
