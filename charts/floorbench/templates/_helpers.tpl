{{/* The chart's name, unless overridden. */}}
{{- define "floorbench.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The prefix of every object's name: the release name, with the chart's
name added unless the release name already contains it. */}}
{{- define "floorbench.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := include "floorbench.name" . }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Labels of every object (app.kubernetes.io/*). Call with (dict "root" $
"component" "worker-gpu"). */}}
{{- define "floorbench.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" }}
{{ include "floorbench.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: floorbench
{{- end }}

{{/* Labels that select a component's pods; they never change on upgrade. */}}
{{- define "floorbench.selectorLabels" -}}
app.kubernetes.io/name: {{ include "floorbench.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "floorbench.serviceAccountName" -}}
{{- default (printf "%s-worker" (include "floorbench.fullname" .)) .Values.serviceAccount.name }}
{{- end }}

{{/* Name of the worker Deployment of a queue. Call with (dict "root" $
"queue" "gpu"). */}}
{{- define "floorbench.workerName" -}}
{{- printf "%s-worker-%s" (include "floorbench.fullname" .root) .queue }}
{{- end }}

{{- define "floorbench.temporalAddress" -}}
{{- if .Values.dev.temporal.enabled }}
{{- printf "%s-temporal:7233" (include "floorbench.fullname" .) }}
{{- else }}
{{- .Values.temporal.address }}
{{- end }}
{{- end }}

{{- define "floorbench.s3Endpoint" -}}
{{- if .Values.dev.minio.enabled }}
{{- printf "%s-minio:9000" (include "floorbench.fullname" .) }}
{{- else }}
{{- .Values.s3.endpoint }}
{{- end }}
{{- end }}

{{/* Environment variables that read the S3 credentials from their Secret;
used by the workers and by the dev MinIO, which takes them as its root user. */}}
{{- define "floorbench.s3CredentialsEnv" -}}
- name: FLOORBENCH_S3_ACCESS_KEY
  valueFrom:
    secretKeyRef:
      name: {{ .Values.s3.credentialsSecret.name }}
      key: {{ .Values.s3.credentialsSecret.accessKeyKey }}
- name: FLOORBENCH_S3_SECRET_KEY
  valueFrom:
    secretKeyRef:
      name: {{ .Values.s3.credentialsSecret.name }}
      key: {{ .Values.s3.credentialsSecret.secretKeyKey }}
{{- end }}
