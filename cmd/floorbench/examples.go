package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// examples are the Example sections of every command's --help, by
// command path after "floorbench". They live together so that the help
// reads as one command line and a test can parse every example.
var examples = map[string]string{
	"": `  floorbench quickstart
  floorbench corpus generate --preset tiny --seed 1 --out tiny/
  floorbench --version`,
	"quickstart": `  floorbench quickstart
  floorbench quickstart -f simtoreal.yaml -o json
  floorbench quickstart simtoreal.yaml
  floorbench quickstart --temporal-address localhost:7233 --s3-endpoint localhost:9000 --s3-bucket floorbench`,
	"dev": `  floorbench dev
  floorbench dev --temporal-address 127.0.0.1:7244 --dir /tmp/fb-dev -o json
  floorbench dev --s3-endpoint localhost:9000 --s3-bucket floorbench`,
	"detect": `  floorbench detect --system rms --corpus mptb/ --split dev --out probs/dev/
  floorbench detect --system rms-endpointer --param eot_ramp_s=1 --corpus tb --out probs/tb/ -o json
  floorbench detect --system-spec vap.yaml --corpus mptb/ --out probs/ --device cuda --threads 4`,
	"score": `  floorbench score --gold gold-dev.json --predictions predictions-dev.json
  floorbench score --gold gold-dev.json --predictions predictions-dev.json --bootstrap 10000 --seed 1 -o json
  floorbench score --gold gold-test.json --predictions p.json --attributes attrs.json --by type,speakers
  floorbench score --gold gold-dev.json --predictions p.json --tau-pre 0.25 --tau-max 3
  floorbench score --gold gold-test.json --predictions p.json --bootstrap 1000 -o latex > score.tex`,
	"sweep": `  floorbench sweep --gold gold-dev.json --probs probs/dev/probs-eot.json
  floorbench sweep --gold gold-dev.json --probs probs/dev/probs-int.json --fp-budget 0.05 --refractory 2 -o json
  floorbench sweep --gold gold-dev.json --probs probs/dev/probs-eot.json -o csv > sweep.csv`,
	"gold": `  floorbench gold --corpus mptb/ --split test -o json > gold-test.json
  floorbench gold --corpus tb --split dev -o json > tb-dev-gold.json`,
	"gold turnbench": `  floorbench gold turnbench --annotations dev-annotations.json -o json > gold-dev.json`,
	"systems": `  floorbench systems
  floorbench systems -o json`,
	"worker": `  floorbench worker
  floorbench worker --queues gpu --health-addr :8080
  floorbench worker --queues cpu=floorbench-cpu,synth=floorbench-synth --memory-budget 4GiB`,
	"submit": `  floorbench submit -f sweep.yaml
  floorbench submit -f sweep.yaml --wait
  floorbench submit -f sweep.yaml -o json --temporal-address temporal-frontend:7233 --namespace default`,
	"status": `  floorbench status WORKFLOW_ID
  floorbench status WORKFLOW_ID -o json`,
	"watch": `  floorbench watch WORKFLOW_ID`,
	"bundle ls": `  floorbench bundle ls
  floorbench bundle ls -o json --store-dir /data/floorbench`,
	"bundle show": `  floorbench bundle show BUNDLE_ID
  floorbench bundle show BUNDLE_ID -o json
  floorbench bundle show latest -o latex > tables.tex`,
	"bundle get": `  floorbench bundle get BUNDLE_ID --out results/
  floorbench bundle get BUNDLE_ID --out results/ --force`,
	"bundle figures": `  floorbench bundle figures BUNDLE_ID --out figures/
  floorbench bundle figures latest --out figures/ --format png --force`,
	"agent serve": `  floorbench agent serve --protocol duplex --policy always-yield
  floorbench agent serve --protocol realtime --addr 127.0.0.1:9000 --policy never-yield
  floorbench agent serve --protocol duplex --policy detector --system rms-endpointer --threshold 0.3 --speak-at-commit`,
	"serve": `  floorbench serve
  floorbench serve --addr 127.0.0.1:9090 --store-dir /data/floorbench
  floorbench serve --s3-endpoint localhost:9000 --s3-bucket floorbench`,
	"bundle diff": `  floorbench bundle diff OLD_ID NEW_ID
  floorbench bundle diff OLD_ID NEW_ID --tolerance 0.01 -o json
  floorbench bundle diff OLD_ID latest -o md`,
	"store verify": `  floorbench store verify
  floorbench store verify corpora/ -o json --s3-endpoint localhost:9000 --s3-bucket floorbench`,
	"corpus generate": `  floorbench corpus generate --preset tiny --seed 1 --out tiny/
  floorbench corpus generate --preset mptb --seed 1 --out mptb/ --jobs 8 -o json
  floorbench corpus generate --preset tiny --seed 1 --out tiny-llm/ \
      --dialogue openai-chat --dialogue-endpoint http://127.0.0.1:8000/v1 --dialogue-model Qwen/Qwen2.5-7B-Instruct \
      --voices openai-speech --voices-endpoint http://127.0.0.1:8880/v1 --voices-model kokoro \
      --voices-names af_bella,af_sky,am_adam,am_michael,bf_emma,bm_george,...
  floorbench corpus generate --preset tiny --seed 1 --out again/ --cache chat-cache/ \
      --dialogue openai-chat --dialogue-endpoint http://127.0.0.1:11434/v1 --dialogue-model llama3.1:8b`,
	"corpus export-cache": `  floorbench corpus export-cache tiny-llm/ --out tiny-llm-cache/
  floorbench corpus export-cache tiny-llm/ --out tiny-llm-cache/ --store-dir /data/floorbench-store -o json`,
	"corpus check": `  floorbench corpus check mptb/
  floorbench corpus check tb -o json`,
	"corpus stats": `  floorbench corpus stats mptb/
  floorbench corpus stats tb -o json
  floorbench corpus stats mptb/ -o md`,
	"corpus timing": `  floorbench corpus timing mptb/
  floorbench corpus timing ami --split test -o json
  floorbench corpus timing mptb/ -o csv > timing.csv`,
	"corpus export": `  floorbench corpus export mptb/ --format rttm --out rttm/
  floorbench corpus export mptb/ --format textgrid --out textgrid/ --force -o json`,
	"corpus audit": `  floorbench corpus audit mptb/
  floorbench corpus audit tb --split dev --bootstrap 1000 --seed 1 -o md
  floorbench corpus audit mptb/ -o latex > audit.tex`,
	"corpus ingest turnbench": `  floorbench corpus ingest turnbench --parquet dev-00000.parquet --parquet test-00000.parquet --out tb
  floorbench corpus ingest turnbench --parquet shard.parquet --split dev --out tb -o json`,
	"corpus ingest ami": `  floorbench corpus ingest ami --nxt ami_public_manual_1.6.2 --audio amicorpus --meetings meetings.txt --out ami
  floorbench corpus ingest ami --nxt ami_public_manual_1.6.2 --audio amicorpus --meetings meetings.txt --out ami --split test -o json`,
	"agent scenarios": `  floorbench agent scenarios --preset tiny-agent --seed 1 --out tiny-agent/
  floorbench agent scenarios --preset mptb-agent --seed 1 --out mptb-agent/ --jobs 8 -o json`,
	"agent run": `  floorbench agent run --scenarios tiny-agent/ --protocol duplex --endpoint ws://127.0.0.1:9000/ --agent reference --out runs/agent-1/
  floorbench agent run --scenarios mptb-agent/ --protocol realtime --endpoint wss://agent.example/v1/realtime --model M --credential-env AGENT_KEY --agent m1 --concurrency 8 --out runs/m1/
  floorbench agent run --scenarios mptb-agent/ --protocol duplex --endpoint ws://127.0.0.1:9000/ --agent reference --concurrency 4 --dry-run`,
	"agent score": `  floorbench agent score --recordings runs/agent-1/
  floorbench agent score --recordings runs/agent-1/ --yield-window 1.5 --stop-silence 0.8 -o json
  floorbench agent score --recordings runs/agent-1/ --bootstrap 0 -o md`,
}

// addExamples sets the Example of every command under root that has
// none of its own.
func addExamples(root *cobra.Command) {
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		if e, ok := examples[strings.Join(path, " ")]; ok && c.Example == "" {
			c.Example = e
		}
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string{}, path...), sub.Name()))
		}
	}
	walk(root, nil)
}
