from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.what_if_create import WhatIfCreate
from ...models.what_if_run import WhatIfRun
from ...types import Response


def _get_kwargs(
    cluster_id: str,
    *,
    body: WhatIfCreate,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/clusters/{cluster_id}/what-if".format(
            cluster_id=quote(str(cluster_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | WhatIfRun | None:
    if response.status_code == 202:
        response_202 = WhatIfRun.from_dict(response.json())

        return response_202

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | WhatIfRun]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    cluster_id: str,
    *,
    client: AuthenticatedClient,
    body: WhatIfCreate,
) -> Response[Problem | WhatIfRun]:
    """Replay this cluster's log under another policy (a background run)

    Args:
        cluster_id (str):
        body (WhatIfCreate): The alternative policy, as the cluster's declaration would give it
            (``policy``, any kind
            of the cluster's family with its parameters), or ``advise`` to rank them all, and the
            window.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | WhatIfRun]
    """

    kwargs = _get_kwargs(
        cluster_id=cluster_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    cluster_id: str,
    *,
    client: AuthenticatedClient,
    body: WhatIfCreate,
) -> Problem | WhatIfRun | None:
    """Replay this cluster's log under another policy (a background run)

    Args:
        cluster_id (str):
        body (WhatIfCreate): The alternative policy, as the cluster's declaration would give it
            (``policy``, any kind
            of the cluster's family with its parameters), or ``advise`` to rank them all, and the
            window.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | WhatIfRun
    """

    return sync_detailed(
        cluster_id=cluster_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    cluster_id: str,
    *,
    client: AuthenticatedClient,
    body: WhatIfCreate,
) -> Response[Problem | WhatIfRun]:
    """Replay this cluster's log under another policy (a background run)

    Args:
        cluster_id (str):
        body (WhatIfCreate): The alternative policy, as the cluster's declaration would give it
            (``policy``, any kind
            of the cluster's family with its parameters), or ``advise`` to rank them all, and the
            window.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | WhatIfRun]
    """

    kwargs = _get_kwargs(
        cluster_id=cluster_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    cluster_id: str,
    *,
    client: AuthenticatedClient,
    body: WhatIfCreate,
) -> Problem | WhatIfRun | None:
    """Replay this cluster's log under another policy (a background run)

    Args:
        cluster_id (str):
        body (WhatIfCreate): The alternative policy, as the cluster's declaration would give it
            (``policy``, any kind
            of the cluster's family with its parameters), or ``advise`` to rank them all, and the
            window.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | WhatIfRun
    """

    return (
        await asyncio_detailed(
            cluster_id=cluster_id,
            client=client,
            body=body,
        )
    ).parsed
