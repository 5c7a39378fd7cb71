{{/* Names, labels and the image reference shared by every template. */}}
{{- define "agent-gateway.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "agent-gateway.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "agent-gateway.gatewayName" -}}
{{- include "agent-gateway.fullname" . | trunc 55 | trimSuffix "-" -}}
{{- end -}}

{{- define "agent-gateway.operatorName" -}}
{{- printf "%s-operator" (include "agent-gateway.fullname" . | trunc 54 | trimSuffix "-") -}}
{{- end -}}

{{- define "agent-gateway.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "agent-gateway.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: agent-gateway
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "agent-gateway.gatewaySelector" -}}
app.kubernetes.io/name: {{ include "agent-gateway.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: gateway
{{- end -}}

{{- define "agent-gateway.operatorSelector" -}}
app.kubernetes.io/name: {{ include "agent-gateway.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end -}}

{{- define "agent-gateway.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* The metrics port of both Deployments, or nothing: on with tracing (otel.enabled), with metrics
only (metrics.enabled) or for the service/pod monitors, unless otel.prometheusPort is 0. */}}
{{- define "agent-gateway.metricsPort" -}}
{{- $m := .Values.metrics -}}
{{- if or .Values.otel.enabled $m.enabled $m.serviceMonitor.enabled $m.podMonitor.enabled -}}
{{- if and (or $m.serviceMonitor.enabled $m.podMonitor.enabled) (not .Values.otel.prometheusPort) -}}
{{- fail "metrics.serviceMonitor and metrics.podMonitor scrape the metrics port: set otel.prometheusPort (0 turns it off)" -}}
{{- end -}}
{{- with .Values.otel.prometheusPort }}{{ . }}{{ end -}}
{{- end -}}
{{- end -}}

{{- define "agent-gateway.otelEnv" -}}
{{- if .Values.otel.enabled }}
- name: OTEL_SDK_DISABLED
  value: "false"
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ required "otel.endpoint is required when otel.enabled" .Values.otel.endpoint | quote }}
- name: OTEL_EXPORTER_OTLP_PROTOCOL
  value: {{ .Values.otel.protocol | quote }}
- name: OTEL_TRACES_SAMPLER
  value: {{ .Values.otel.sampler | quote }}
- name: OTEL_TRACES_SAMPLER_ARG
  value: {{ .Values.otel.samplerArg | quote }}
- name: OTEL_EXPORTER_PROMETHEUS_PORT
  value: {{ .Values.otel.prometheusPort | quote }}
# The exposition defaults to loopback outside the chart; Prometheus scrapes the pod IP (the
# NetworkPolicies, when on, limit who may).
- name: OTEL_EXPORTER_PROMETHEUS_HOST
  value: "0.0.0.0"
{{- with .Values.otel.resourceAttributes }}
- name: OTEL_RESOURCE_ATTRIBUTES
  value: {{ . | quote }}
{{- end }}
{{- else if include "agent-gateway.metricsPort" . }}
# Metrics only (metrics.*): the SDK runs for the Prometheus exposition, with no trace sampled.
- name: OTEL_SDK_DISABLED
  value: "false"
- name: OTEL_TRACES_SAMPLER
  value: "always_off"
- name: OTEL_EXPORTER_PROMETHEUS_PORT
  value: {{ .Values.otel.prometheusPort | quote }}
- name: OTEL_EXPORTER_PROMETHEUS_HOST
  value: "0.0.0.0"
{{- end }}
{{- end -}}

{{/* The Secret with the keys that encrypt what Redis stores: the admin's, or the one the chart makes. */}}
{{- define "agent-gateway.connectionKeysSecret" -}}
{{- default (printf "%s-connection-keys" (include "agent-gateway.fullname" .)) .Values.userConnections.encryptionSecret.name -}}
{{- end -}}

{{- define "agent-gateway.redisEncryptionSecret" -}}
{{- default (printf "%s-redis-encryption" (include "agent-gateway.fullname" .)) .Values.sharedState.redis.encryptionSecret.name -}}
{{- end -}}
