package cluster_test

import (
	"testing"

	"github.com/floorbench/floorbench/internal/cluster/clustertest"
)

func TestMain(m *testing.M) { clustertest.Main(m) }
