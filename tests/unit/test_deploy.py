"""The shipped deployments: the systemd unit, and Docker Compose with its image and instance.

Why: a unit with a typo is ignored line by line by systemd (the service then never
restarts, or stops the wrong way) and a compose file that names a missing file fails on
the operator's machine, not here. Each file is checked by the real tool where this
machine has it (`systemd-analyze verify`, `docker compose config`), skipping with the
reason where it does not, and always by reading it against the repository; the compose
deployment's dagster.yaml is loaded by Dagster itself against a real PostgreSQL.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from bodoge.serve import LOCATION
from pipelines.instance import PG_URL_ENV

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
UNIT = DEPLOY / "bodoge.service"
INSTALL_DIR = "/opt/bodoge-pipeline"  # where the unit expects the checkout


def unit_settings(text: str) -> dict[str, list[str]]:
    """Every Key=value of a unit file (a key may repeat, as Environment= does)."""
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(("#", ";", "[")) and "=" in line:
            key, value = line.split("=", 1)
            found.setdefault(key.strip(), []).append(value.strip())
    return found


def test_the_unit_restarts_on_failure_stops_with_sigterm_and_reads_its_environment_file() -> None:
    s = unit_settings(UNIT.read_text(encoding="utf-8"))
    assert s["Restart"] == ["on-failure"] and s["KillSignal"] == ["SIGTERM"] and s["KillMode"] == ["mixed"]
    assert s["SuccessExitStatus"] == ["143"]  # serve's exit on SIGTERM is a clean stop
    assert s["StartLimitIntervalSec"] == ["0"]  # keeps retrying while PostgreSQL comes up after a reboot
    assert s["EnvironmentFile"] == ["/etc/bodoge/bodoge.env"]  # required: no "-", never the wrong instance
    assert "BODOGE_DATA_DIR=/var/lib/bodoge" in s["Environment"] and s["StateDirectory"] == ["bodoge"]
    assert s["ExecStart"] == [f"{INSTALL_DIR}/.venv/bin/bodoge serve --port 3000"]
    assert s["WantedBy"] == ["multi-user.target"]


def test_every_variable_of_the_example_environment_files_is_one_the_code_reads() -> None:
    source = "\n".join(p.read_text(encoding="utf-8") for d in ("bodoge", "pipelines", "core", "warehouse")
                       for p in (REPO / d).rglob("*.py"))
    compose = (DEPLOY / "docker-compose.yml").read_text(encoding="utf-8")
    for example, reader in ((DEPLOY / "bodoge.env.example", source), (DEPLOY / ".env.example", compose)):
        names = re.findall(r"^#?\s*([A-Z][A-Z0-9_]+)=", example.read_text(encoding="utf-8"), flags=re.M)
        assert names, example
        for name in names:
            assert name in reader, f"{example.name}: {name} is read by nothing"
    assert PG_URL_ENV in (DEPLOY / "bodoge.env.example").read_text(encoding="utf-8")


def compose_file() -> dict:
    return yaml.safe_load((DEPLOY / "docker-compose.yml").read_text(encoding="utf-8"))


def dockerfile_copies(dockerfile: Path) -> list[tuple[list[str], str]]:
    """(sources, destination) of every COPY without --from."""
    copies = []
    for line in dockerfile.read_text(encoding="utf-8").splitlines():
        words = line.split()
        if words[:1] == ["COPY"] and not any(w.startswith("--from") for w in words):
            args = [w for w in words[1:] if not w.startswith("--")]
            copies.append((args[:-1], args[-1]))
    return copies


def test_the_compose_file_names_real_files_and_wires_the_instance_to_postgres() -> None:
    compose = compose_file()
    services = compose["services"]
    assert set(services) == {"postgresql", "code", "webserver", "daemon", "api"}
    db = services["postgresql"]
    assert db["image"].startswith("postgres:") and "healthcheck" in db
    user, name = db["environment"]["POSTGRES_USER"], db["environment"]["POSTGRES_DB"]
    declared = set(compose["volumes"])
    for svc_name, svc in services.items():
        assert svc["restart"] == "unless-stopped", svc_name  # back after a reboot
        for volume in svc.get("volumes", []):
            assert volume.split(":")[0] in declared, (svc_name, volume)
        if svc_name == "postgresql":
            continue
        context = (DEPLOY / svc["build"]["context"]).resolve()
        assert context == REPO and (context / svc["build"]["dockerfile"]).is_file(), svc_name
        assert svc["image"] == "bodoge-pipeline"
        env = svc["environment"]
        if svc_name == "api":  # not a Dagster process: the published night, read-only, behind the token
            assert svc["command"][:2] == ["bodoge", "api"] and "bodoge-data:/data:ro" in svc["volumes"]
            assert env["BODOGE_API_TOKEN"].startswith("${BODOGE_API_TOKEN:?") and svc["ports"] == ["127.0.0.1:8000:8000"]
            continue
        assert env["DAGSTER_HOME"] == "/opt/dagster/dagster_home"
        assert re.fullmatch(rf"postgresql://{user}:\$\{{BODOGE_PG_PASSWORD[^}}]*\}}@postgresql:5432/{name}",
                            env[PG_URL_ENV]), env[PG_URL_ENV]
        assert svc_name == "code" or svc["depends_on"]["postgresql"]["condition"] == "service_healthy"
    code = services["code"]
    assert "bodoge-data:/data" in code["volumes"] and code["environment"]["BODOGE_DATA_DIR"] == "/data"
    workspace = yaml.safe_load((DEPLOY / "workspace.yaml").read_text(encoding="utf-8"))
    server = workspace["load_from"][0]["grpc_server"]
    assert server == {"host": "code", "port": 4000, "location_name": LOCATION}
    assert code["command"][:3] == ["dagster", "api", "grpc"] and "4000" in code["command"]
    assert code["command"][-2:] == ["--location-name", LOCATION]
    for svc in ("webserver", "daemon"):
        assert "/opt/dagster/dagster_home/workspace.yaml" in services[svc]["command"]


def test_the_dockerfile_copies_files_that_exist_and_installs_from_the_lock() -> None:
    dockerfile = DEPLOY / "Dockerfile"
    copies = dockerfile_copies(dockerfile)
    sources = [src for srcs, _ in copies for src in srcs]
    for src in sources:
        assert (REPO / src).exists(), f"deploy/Dockerfile copies {src}, which the repository does not have"
    assert {"pyproject.toml", "uv.lock"} <= set(sources)
    text = dockerfile.read_text(encoding="utf-8")
    assert "uv sync --locked" in text
    import tomllib

    packages = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["hatch"]["build"][
        "targets"]["wheel"]["packages"]
    assert set(packages) <= set(sources), "the image lacks a package of the project"
    home = re.search(r"DAGSTER_HOME=(\S+)", text).group(1)
    assert (["deploy/dagster.yaml", "deploy/workspace.yaml"], f"{home}/") in copies


DOCKER_EXECUTOR_FIELDS = {"container_kwargs", "env_vars", "image", "max_concurrent", "network", "networks", "registry",
                          "retries", "step_dependency_config", "tag_concurrency_limits"}
"""dagster_docker.docker_executor's config fields (dagster-docker 0.29.27's schema, the release of
Dagster 1.13.27; it is not in the lock)."""
K8S_EXECUTOR_FIELDS = {"enable_owner_references", "env_config_maps", "env_secrets", "env_vars", "image_pull_policy",
                       "image_pull_secrets", "job_image", "job_namespace", "kubeconfig_file", "labels",
                       "load_incluster_config", "max_concurrent", "per_step_k8s_config", "resources", "retries",
                       "scheduler_name", "security_context", "service_account_name", "step_dependency_config",
                       "step_k8s_config", "tag_concurrency_limits", "volume_mounts", "volumes"}
"""dagster_k8s.k8s_job_executor's config fields (dagster-k8s 0.29.27's schema; not in the lock)."""


def test_the_buckets_compose_form_runs_each_bucket_in_a_container_of_the_same_image() -> None:
    base = compose_file()
    layer = yaml.safe_load((DEPLOY / "docker-compose.buckets.yml").read_text(encoding="utf-8"))
    executor = yaml.safe_load((DEPLOY / "bucket-executor.docker.yaml").read_text(encoding="utf-8"))
    assert set(layer["services"]) <= set(base["services"]), "the layer only changes the main file's services"
    code = layer["services"]["code"]
    assert code["environment"]["BODOGE_BUCKET_EXECUTOR"] == "docker"
    config_path = code["environment"]["BODOGE_BUCKET_EXECUTOR_CONFIG"]
    assert f"./bucket-executor.docker.yaml:{config_path}:ro" in code["volumes"]
    assert "/var/run/docker.sock:/var/run/docker.sock" in code["volumes"]
    assert code["build"]["args"]["EXECUTOR_PACKAGES"] == "dagster-docker"
    assert "ARG EXECUTOR_PACKAGES" in (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    # the bucket containers: the code service's image, on the layer's network, with the data volume
    assert set(executor) <= DOCKER_EXECUTOR_FIELDS
    assert executor["image"] == base["services"]["code"]["image"]
    assert executor["networks"] == [layer["networks"]["bodoge"]["name"]]
    assert all(svc["networks"] == ["bodoge"] for svc in layer["services"].values())
    data_volume = layer["volumes"]["bodoge-data"]["name"]
    assert "bodoge-data:/data" in base["services"]["code"]["volumes"]
    assert executor["container_kwargs"]["volumes"][data_volume] == {"bind": "/data", "mode": "rw"}
    for name in executor["env_vars"]:
        assert name in ("DAGSTER_HOME", PG_URL_ENV) or name.startswith("BODOGE_"), name


def test_the_kubernetes_form_names_real_executor_fields_and_mounts_the_data_directory() -> None:
    executor = yaml.safe_load((DEPLOY / "bucket-executor.k8s.yaml").read_text(encoding="utf-8"))
    assert set(executor) <= K8S_EXECUTOR_FIELDS
    (mount,) = executor["volume_mounts"]
    (volume,) = executor["volumes"]
    assert mount == {"name": volume["name"], "mount_path": "/data"}
    assert "BODOGE_DATA_DIR=/data" in executor["env_vars"] and "BODOGE_BUCKET_EXECUTOR=k8s" in executor["env_vars"]
    docs = (REPO / "docs" / "scaling.md").read_text(encoding="utf-8")
    assert "K8sRunLauncher" in docs and "bucket-executor.k8s.yaml" in docs and "k8s_job_executor" in docs
