package config

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"github.com/floorbench/floorbench/internal/backend"
	"github.com/floorbench/floorbench/internal/credential"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/webhook"
)

// Config says where Temporal and the store are. It is read from a YAML
// file, then the environment, then flags, each overriding the one before.
// Secrets (API key, S3 secret) are never printed: Describe leaves them out.
type Config struct {
	TemporalAddress string `yaml:"temporal_address"`
	Namespace       string `yaml:"namespace"`
	APIKey          string `yaml:"temporal_api_key"`
	TLS             bool   `yaml:"temporal_tls"`
	S3Endpoint      string `yaml:"s3_endpoint"`
	S3Bucket        string `yaml:"s3_bucket"`
	S3AccessKey     string `yaml:"s3_access_key"`
	S3SecretKey     string `yaml:"s3_secret_key"`
	S3Secure        bool   `yaml:"s3_secure"`
	// StoreDir is the local-directory store used when no S3 endpoint is set.
	StoreDir string `yaml:"store_dir"`
	// ScheduleRoot is the one folder of a worker's machine whose files
	// scheduled runs may read ("": none, docs/operations.md#nightly-schedules).
	ScheduleRoot string `yaml:"schedule_root"`
	// WebhookAllowLinkLocal lets scheduled runs' webhooks reach link-local
	// and cloud metadata addresses (webhook.Policy).
	WebhookAllowLinkLocal bool `yaml:"webhook_allow_link_local"`
	// Limits bound what this process accepts (package limits); the file's
	// limits section raises them, FLOORBENCH_LIMIT_* over it.
	Limits limits.Limits `yaml:"limits"`
	// AgentCredentials are agents' credentials by the name a sweep spec's
	// credential_env gives; the environment variable of that name, when
	// set, overrides the entry. Never printed.
	AgentCredentials map[string]string `yaml:"agent_credentials,omitempty"`
	// DialogueAPIKey and VoicesAPIKey are the generator's generative
	// backends' API keys (docs/corpora.md#generative-backends);
	// FLOORBENCH_DIALOGUE_API_KEY and FLOORBENCH_VOICES_API_KEY override
	// them. Never printed.
	DialogueAPIKey string `yaml:"dialogue_api_key"`
	VoicesAPIKey   string `yaml:"voices_api_key"`
}

// GenerativeSecrets are the generative backends' API keys.
func (c Config) GenerativeSecrets() backend.Secrets {
	return backend.Secrets{Dialogue: credential.Secret(c.DialogueAPIKey), Voices: credential.Secret(c.VoicesAPIKey)}
}

// DefaultConfig is a Temporal dev server and a local store on this machine.
func DefaultConfig() Config {
	dir := "floorbench-store"
	if data, err := os.UserHomeDir(); err == nil {
		dir = filepath.Join(data, ".local", "share", "floorbench", "store")
	}
	return Config{TemporalAddress: "127.0.0.1:7233", Namespace: "default", S3Bucket: "floorbench", StoreDir: dir,
		Limits: limits.Default()}
}

// DefaultConfigPath is where the config file is looked for.
func DefaultConfigPath() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "floorbench", "config.yaml")
}

// LoadConfig reads path (when it exists, or must when required) over the
// defaults, then the FLOORBENCH_* environment variables.
func LoadConfig(path string, required bool) (Config, error) {
	c := DefaultConfig()
	if path != "" {
		env, err := limits.Default().FromEnv(os.LookupEnv)
		if err != nil {
			return c, err
		}
		data, err := env.ReadSpec(path)
		switch {
		case err == nil:
			if err := decodeConfig(data, &c); err != nil {
				return c, fmt.Errorf("config %s: %w", path, err)
			}
			if err := c.Limits.Validate(); err != nil {
				return c, fmt.Errorf("config %s: %w", path, err)
			}
			if len(c.AgentCredentials) == 0 {
				c.AgentCredentials = nil // an empty section sets nothing
			}
		case required || !errors.Is(err, os.ErrNotExist):
			return c, fmt.Errorf("config: %w", err)
		}
	}
	var err error
	if c.Limits, err = c.Limits.FromEnv(os.LookupEnv); err != nil {
		return c, err
	}
	env := func(name string, dst *string) {
		if v, ok := os.LookupEnv(name); ok {
			*dst = v
		}
	}
	env("FLOORBENCH_TEMPORAL_ADDRESS", &c.TemporalAddress)
	env("FLOORBENCH_TEMPORAL_NAMESPACE", &c.Namespace)
	env("FLOORBENCH_TEMPORAL_API_KEY", &c.APIKey)
	env("FLOORBENCH_S3_ENDPOINT", &c.S3Endpoint)
	env("FLOORBENCH_S3_BUCKET", &c.S3Bucket)
	env("FLOORBENCH_S3_ACCESS_KEY", &c.S3AccessKey)
	env("FLOORBENCH_S3_SECRET_KEY", &c.S3SecretKey)
	env("FLOORBENCH_STORE_DIR", &c.StoreDir)
	env("FLOORBENCH_SCHEDULE_ROOT", &c.ScheduleRoot)
	env(backend.DialogueKeyEnv, &c.DialogueAPIKey)
	env(backend.VoicesKeyEnv, &c.VoicesAPIKey)
	for name, dst := range map[string]*bool{"FLOORBENCH_TEMPORAL_TLS": &c.TLS, "FLOORBENCH_S3_SECURE": &c.S3Secure, "FLOORBENCH_WEBHOOK_ALLOW_LINK_LOCAL": &c.WebhookAllowLinkLocal} {
		if v, ok := os.LookupEnv(name); ok {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return c, fmt.Errorf("%s=%q: want true or false", name, v)
			}
			*dst = b
		}
	}
	return c, nil
}

// Webhooks is what the configuration allows webhooks.
func (c Config) Webhooks() webhook.Policy {
	return webhook.Policy{AllowLinkLocal: c.WebhookAllowLinkLocal}
}

// DevServer is c pointed at a local dev server at address, in its default
// namespace, without TLS and without the API key: credentials for a remote
// Temporal are not sent to a server of our own, which would refuse TLS.
func (c Config) DevServer(address string) Config {
	c.TemporalAddress, c.Namespace, c.APIKey, c.TLS = address, "default", "", false
	return c
}

// OpenStore opens the S3 store when an endpoint is set, else the local one.
// A bucket that does not exist is an error naming it. The objects read
// whole from it (store.GetBytes) are bounded by c's input limit.
func (c Config) OpenStore(ctx context.Context) (store.Store, error) {
	max := c.Limits.OrDefault().InputBytes
	if c.S3Endpoint != "" {
		st, err := openS3(ctx, c, max)
		if err != nil {
			return nil, err
		}
		return Summing(st), nil
	}
	st, err := store.NewLocal(c.StoreDir)
	if err != nil {
		return nil, err
	}
	return Summing(st.WithReadLimit(max)), nil
}

// Summing is st recording the sha256 of every object not named by its
// content (keys.Summed), for `store verify`, and checking every object it
// reads against that sum or the one its key names (keys.Named).
func Summing(st store.Store) store.Store {
	return store.Summing{Store: st, Summed: keys.Summed, SumKey: keys.Sum, Named: keys.Named}
}

// InitStore creates the configured bucket unless it exists (the local
// store's folder is created when it is opened).
func (c Config) InitStore(ctx context.Context) (store.Store, error) {
	if c.S3Endpoint != "" {
		if err := createBucket(ctx, c); err != nil {
			return nil, err
		}
	}
	return c.OpenStore(ctx)
}

// CheckTemporalAddress refuses a Temporal address that is not host:port.
func (c Config) CheckTemporalAddress() error {
	if _, _, err := net.SplitHostPort(c.TemporalAddress); err != nil {
		return &ConfigError{Err: err, Setting: "temporal_address " + c.TemporalAddress}
	}
	return nil
}

// ConfigError is a setting that cannot work, however long one waits.
type ConfigError struct {
	Setting string
	Err     error
}

func (e *ConfigError) Error() string { return e.Setting + ": " + e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }
