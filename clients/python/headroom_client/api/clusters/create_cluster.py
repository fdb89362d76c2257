from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.cluster_create import ClusterCreate
from ...models.cluster_out import ClusterOut
from ...models.cluster_preview import ClusterPreview
from ...models.moment_cluster_create import MomentClusterCreate
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: ClusterCreate | MomentClusterCreate,
    dry_run: bool | Unset = False,
    idempotency_key: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    params: dict[str, Any] = {}

    params["dry_run"] = dry_run

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/clusters",
        "params": params,
    }

    if isinstance(body, ClusterCreate):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ClusterOut | ClusterPreview | Problem | None:
    if response.status_code == 200:
        response_200 = ClusterPreview.from_dict(response.json())

        return response_200

    if response.status_code == 201:
        response_201 = ClusterOut.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ClusterOut | ClusterPreview | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: ClusterCreate | MomentClusterCreate,
    dry_run: bool | Unset = False,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[ClusterOut | ClusterPreview | Problem]:
    """Declare a cluster (or, with dry_run, preview what it makes)

    Args:
        dry_run (bool | Unset): true: validate and resolve the declaration as creation does and
            answer 200 with the cluster it would make (no id, version, generation or times; its name
            is not checked against existing clusters); nothing is written, and an Idempotency-Key is
            neither read nor recorded. Default: False.
        idempotency_key (None | str | Unset):
        body (ClusterCreate | MomentClusterCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ClusterOut | ClusterPreview | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
        dry_run=dry_run,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: ClusterCreate | MomentClusterCreate,
    dry_run: bool | Unset = False,
    idempotency_key: None | str | Unset = UNSET,
) -> ClusterOut | ClusterPreview | Problem | None:
    """Declare a cluster (or, with dry_run, preview what it makes)

    Args:
        dry_run (bool | Unset): true: validate and resolve the declaration as creation does and
            answer 200 with the cluster it would make (no id, version, generation or times; its name
            is not checked against existing clusters); nothing is written, and an Idempotency-Key is
            neither read nor recorded. Default: False.
        idempotency_key (None | str | Unset):
        body (ClusterCreate | MomentClusterCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ClusterOut | ClusterPreview | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
        dry_run=dry_run,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: ClusterCreate | MomentClusterCreate,
    dry_run: bool | Unset = False,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[ClusterOut | ClusterPreview | Problem]:
    """Declare a cluster (or, with dry_run, preview what it makes)

    Args:
        dry_run (bool | Unset): true: validate and resolve the declaration as creation does and
            answer 200 with the cluster it would make (no id, version, generation or times; its name
            is not checked against existing clusters); nothing is written, and an Idempotency-Key is
            neither read nor recorded. Default: False.
        idempotency_key (None | str | Unset):
        body (ClusterCreate | MomentClusterCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ClusterOut | ClusterPreview | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
        dry_run=dry_run,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: ClusterCreate | MomentClusterCreate,
    dry_run: bool | Unset = False,
    idempotency_key: None | str | Unset = UNSET,
) -> ClusterOut | ClusterPreview | Problem | None:
    """Declare a cluster (or, with dry_run, preview what it makes)

    Args:
        dry_run (bool | Unset): true: validate and resolve the declaration as creation does and
            answer 200 with the cluster it would make (no id, version, generation or times; its name
            is not checked against existing clusters); nothing is written, and an Idempotency-Key is
            neither read nor recorded. Default: False.
        idempotency_key (None | str | Unset):
        body (ClusterCreate | MomentClusterCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ClusterOut | ClusterPreview | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            dry_run=dry_run,
            idempotency_key=idempotency_key,
        )
    ).parsed
