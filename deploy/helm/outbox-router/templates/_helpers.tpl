{{- define "outbox-router.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "outbox-router.fullname" -}}
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

{{- define "outbox-router.selectorLabels" -}}
app.kubernetes.io/name: {{ include "outbox-router.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "outbox-router.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "outbox-router.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: outbox-router
{{- end -}}

{{- define "outbox-router.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "outbox-router.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The router's YAML: .Values.config with metrics.listen from .Values.metrics. */}}
{{- define "outbox-router.config" -}}
{{- $config := deepCopy .Values.config -}}
{{- $metrics := dict -}}
{{- if hasKey $config "metrics" -}}
{{- $metrics = get $config "metrics" -}}
{{- end -}}
{{- if .Values.metrics.enabled -}}
{{- $_ := set $metrics "listen" (printf "0.0.0.0:%d" (int .Values.metrics.port)) -}}
{{- $_ := set $config "metrics" $metrics -}}
{{- else -}}
{{- $_ := unset $config "metrics" -}}
{{- end -}}
{{- toYaml $config -}}
{{- end -}}

{{/* shutdown.timeout.ms in whole seconds, rounded up (the router's default: 30000). */}}
{{- define "outbox-router.shutdownSeconds" -}}
{{- $ms := 30000 -}}
{{- if hasKey .Values.config "shutdown.timeout.ms" -}}
{{- $ms = int (get .Values.config "shutdown.timeout.ms") -}}
{{- end -}}
{{- div (add $ms 999) 1000 -}}
{{- end -}}

{{- define "outbox-router.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
