# syntax=docker/dockerfile:1
# Image of the cpu and synth workers (docs/operations.md#images): the floorbench binary,
# espeak-ng, flite and festival (run as programs, never linked), ONNX Runtime's CPU
# library and the models. Every tool is installed by scripts/setup.sh, the
# script CI runs, so the image holds the same pinned, checksum-verified files
# the tests ran against.
#
#   docker build -t floorbench .
#   docker run --rm floorbench --help

ARG GO_VERSION=1.26.8
ARG DEBIAN=bookworm

# The binary. cgo stays on: the ONNX Runtime binding loads the library with
# dlopen and the WebRTC VAD is C.
FROM golang:${GO_VERSION}-${DEBIAN} AS build
WORKDIR /src
# libopus and libopusfile (the moshi protocol's Opus audio, cgo).
COPY scripts/setup.sh /tmp/setup.sh
RUN /tmp/setup.sh opus && rm -rf /var/lib/apt/lists/*
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The image has no Git history: the code version every manifest records is
# stamped from the build argument (docker build --build-arg REVISION=$(git
# describe --always --dirty)); without it the binary names its own SHA-256.
ARG REVISION=
RUN go build -trimpath -ldflags "-s -w -X github.com/floorbench/floorbench/internal/version.Revision=${REVISION}" -o /out/floorbench ./cmd/floorbench

# ONNX Runtime and the models come out of npm packages (setup.sh onnx); npm
# stays in this stage.
FROM golang:${GO_VERSION}-${DEBIAN} AS models
RUN apt-get update && apt-get install -y --no-install-recommends npm && rm -rf /var/lib/apt/lists/*
ENV FLOORBENCH_TOOLS=/opt/floorbench/tools
COPY scripts/setup.sh /src/scripts/setup.sh
RUN /src/scripts/setup.sh onnx

FROM debian:${DEBIAN}-slim
ENV FLOORBENCH_TOOLS=/opt/floorbench/tools
COPY scripts/setup.sh /tmp/setup.sh
# The speech component installs espeak-ng, flite, festival with three
# festvox voices and sox from Debian; opus the libraries the binary links.
RUN /tmp/setup.sh speech opus && rm -rf /tmp/setup.sh /var/lib/apt/lists/*
COPY --from=models /opt/floorbench/tools /opt/floorbench/tools
COPY --from=build /out/floorbench /usr/local/bin/floorbench
# The chart runs the workers as this user with a read-only root file system
# and a writable /tmp.
USER 65532:65532
ENTRYPOINT ["floorbench"]
CMD ["worker", "--queues", "cpu,synth"]
