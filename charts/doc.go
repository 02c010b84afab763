// Package charts holds no code: its tests check the Helm chart in
// charts/floorbench and the plain manifests rendered from it (docs/operations.md#helm-chart).
package charts
