//! Which cluster to talk to: `--kubeconfig`, `--context`, `KUBECONFIG`,
//! `~/.kube/config`, or the in-cluster service account, in that order.

use std::path::PathBuf;
use std::time::Duration;

use kube::config::{KubeConfigOptions, Kubeconfig};

use super::LiveError;

/// Where the connection settings come from.
#[derive(Clone, Debug, Default)]
pub struct Target {
    /// `--kubeconfig`: this file instead of `KUBECONFIG` / `~/.kube/config`.
    pub kubeconfig: Option<PathBuf>,
    /// `--context`: this context instead of the kubeconfig's current one.
    pub context: Option<String>,
}

/// The resolved settings, with the context name for display and recordings.
pub struct Resolved {
    pub config: kube::Config,
    pub context: String,
}

fn bad(what: impl std::fmt::Display, e: impl std::fmt::Display) -> LiveError {
    LiveError::BadKubeconfig(format!("{what}: {e}"))
}

/// Resolves the target into client settings. Watches hold a connection open
/// for minutes, so the read timeout is lifted; connecting must be quick.
pub async fn resolve(target: &Target) -> Result<Resolved, LiveError> {
    let kubeconfig = match &target.kubeconfig {
        Some(path) => {
            Some(Kubeconfig::read_from(path).map_err(|e| bad(path.display(), error_chain(&e)))?)
        }
        None => {
            // An empty KUBECONFIG is unset, as kubectl reads it.
            let env = std::env::var_os("KUBECONFIG").filter(|v| !v.is_empty());
            if let Some(v) = &env
                && !std::env::split_paths(v).any(|p| p.exists())
            {
                return Err(LiveError::BadKubeconfig(format!(
                    "$KUBECONFIG names no file that exists ({})",
                    v.to_string_lossy()
                )));
            }
            let default_exists =
                env.is_some() || dirs::home_dir().is_some_and(|h| h.join(".kube/config").exists());
            if default_exists {
                let source = if env.is_some() {
                    "$KUBECONFIG"
                } else {
                    "~/.kube/config"
                };
                Some(Kubeconfig::read().map_err(|e| bad(source, error_chain(&e)))?)
            } else {
                None
            }
        }
    };
    let (mut config, context) = match kubeconfig {
        Some(kc) => {
            let context = target
                .context
                .clone()
                .or_else(|| kc.current_context.clone())
                .ok_or_else(|| {
                    LiveError::BadKubeconfig(
                        "the kubeconfig names no current-context; give --context NAME".into(),
                    )
                })?;
            if !kc.contexts.iter().any(|c| c.name == context) {
                let known: Vec<&str> = kc.contexts.iter().map(|c| c.name.as_str()).collect();
                return Err(LiveError::BadKubeconfig(format!(
                    "no context {context:?} in the kubeconfig (it has: {})",
                    known.join(", ")
                )));
            }
            let options = KubeConfigOptions {
                context: Some(context.clone()),
                ..Default::default()
            };
            let config = kube::Config::from_custom_kubeconfig(kc, &options)
                .await
                .map_err(|e| bad(format!("context {context}"), error_chain(&e)))?;
            (config, context)
        }
        None => {
            if let Some(context) = &target.context {
                return Err(LiveError::BadKubeconfig(format!(
                    "--context {context}: no kubeconfig found (set KUBECONFIG or --kubeconfig)"
                )));
            }
            if std::env::var_os("KUBERNETES_SERVICE_HOST").is_none() {
                return Err(LiveError::BadKubeconfig(
                    "no kubeconfig found ($KUBECONFIG, ~/.kube/config) and not running in a cluster"
                        .into(),
                ));
            }
            let config = kube::Config::incluster().map_err(|e| {
                LiveError::BadKubeconfig(format!(
                    "no kubeconfig found, and the in-cluster service account is unusable: {}",
                    error_chain(&e)
                ))
            })?;
            (config, "in-cluster".to_string())
        }
    };
    config.connect_timeout = Some(Duration::from_secs(10));
    config.read_timeout = None;
    Ok(Resolved { config, context })
}

/// An error with its causes, `a: b: c`, skipping causes already quoted.
pub fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str(": ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    text
}
